package main

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// pemFiles writes the server's CA and a client certificate of name, with
// its key, as PEM files, as an operator is given them.
func pemFiles(t *testing.T, ca *zktesting.TLS, name string) (caFile, certFile, keyFile string) {
	dir := t.TempDir()
	write := func(file, kind string, der []byte) string {
		p := filepath.Join(dir, file)
		require.NoError(t, os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600))
		return p
	}
	cert := ca.ClientCertificate(name)
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	require.NoError(t, err)
	return write("ca.pem", "CERTIFICATE", ca.CA().Raw), write("client.pem", "CERTIFICATE", cert.Certificate[0]),
		write("client.key", "PRIVATE KEY", key)
}

// zkr reaches a TLS-only client port with the CA and the client
// certificate given as files, and refuses with a clear message what
// trusts another CA.
func TestTLSFlags_ReachTheSecureClientPortWithACertificate(t *testing.T) {
	t.Parallel()
	server := zktest.NewServer(t, zktesting.WithTLS())
	caFile, certFile, keyFile := pemFiles(t, server.TLS(), "operator")
	flags := []string{"--servers", server.TLSAddr(), "--tls-ca", caFile, "--tls-cert", certFile, "--tls-key", keyFile}
	path := zktest.UniquePath(t)

	code, _, stderr := runZkr(t, append(append([]string{"create"}, flags...), "--parents", path, "over tls")...)
	require.Equal(t, 0, code, stderr)
	code, stdout, stderr := runZkr(t, append(append([]string{"get"}, flags...), path)...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "over tls\n", stdout)

	otherCA, _, _ := pemFiles(t, zktesting.NewTLS(), "operator")
	code, _, stderr = runZkr(t, "get", "--servers", server.TLSAddr(), "--tls-ca", otherCA,
		"--tls-cert", certFile, "--tls-key", keyFile, "--connect-timeout", "1m", path)
	assert.Equal(t, exitError, code, "a refused handshake is not waited out: %s", stderr)
	assert.Contains(t, stderr, "certificate")
}

// Bad TLS flags are usage errors before any connection.
func TestTLSFlags_BadFilesAreUsageErrors(t *testing.T) {
	t.Parallel()
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o600))
	for _, args := range [][]string{
		{"--tls-ca", filepath.Join(t.TempDir(), "missing.pem")},
		{"--tls-ca", notPEM},
		{"--tls-cert", notPEM},
		{"--tls-cert", notPEM, "--tls-key", notPEM},
	} {
		code, _, stderr := runZkr(t, append(append([]string{"get", "--servers", "127.0.0.1:1", "--connect-timeout", "1h"}, args...), "/")...)
		assert.Equal(t, exitUsage, code, "%q: %s", args, stderr)
	}
}
