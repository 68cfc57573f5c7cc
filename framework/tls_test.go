package framework_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// tlsServer starts a server with a TLS port for the test alone.
func tlsServer(t *testing.T) *zktesting.Server {
	t.Helper()
	return zktest.NewServer(t, zktesting.WithTLS())
}

// countedDialer counts the connections a client makes, for zk.WithDialer.
func countedDialer(dials *atomic.Int64) func(string, string, time.Duration) (net.Conn, error) {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		dials.Add(1)
		return net.DialTimeout(network, address, timeout)
	}
}

func TestTLS_AClientCertificateOfTheServersCAConnectsWithItsIdentityAndALease(t *testing.T) {
	t.Parallel()
	s := tlsServer(t)
	c := connect(t, s.TLSAddr(), framework.WithTLS(s.TLS().ClientConfig("alice")))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	acl := zk.ACL{Perms: zk.PermAll, Scheme: "x509", ID: zktesting.X509Identity("alice")}
	require.NoError(t, c.EnsurePath(ctx, path))
	_, err := c.Create(ctx, path+"/alice", []byte("a"), framework.Persistent, framework.WithACL([]zk.ACL{acl}))
	require.NoError(t, err)

	data, _, err := c.Get(ctx, path+"/alice")
	require.NoError(t, err, "the server took the certificate's subject for the client's identity")
	assert.Equal(t, "a", string(data))
	_, ok := c.Session().LeaseDeadline()
	assert.True(t, ok, "the client follows the frames inside TLS: it keeps the session lease")

	plain := connect(t, s.Addr())
	_, _, err = plain.Get(ctx, path+"/alice")
	assert.ErrorIs(t, err, zk.ErrNoAuth, "only the certificate is alice")
}

func TestTLS_TheServerNameIsTheConnectStringsHost(t *testing.T) {
	t.Parallel()
	s := tlsServer(t)
	_, port, err := net.SplitHostPort(s.TLSAddr())
	require.NoError(t, err)
	names := make(chan string, 16)
	cfg := s.TLS().ClientConfig("alice")
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		names <- cs.ServerName
		return nil
	}
	connect(t, net.JoinHostPort("localhost", port), framework.WithTLS(cfg))
	assert.Equal(t, "localhost", <-names, "go-zookeeper dials the resolved address; the certificate is checked against the name")
	assert.Empty(t, cfg.ServerName, "the caller's config is left as it was")
}

// A CA that did not sign the server's certificate: Connect fails at once,
// not at its deadline, says why, and the client dials no more.
func TestTLS_AnUnknownCAFailsConnectAtOnceAndStopsDialling(t *testing.T) {
	t.Parallel()
	s := tlsServer(t)
	cfg := s.TLS().ClientConfig("alice")
	cfg.RootCAs = zktesting.NewTLS().CAPool()
	var dials atomic.Int64
	c, err := framework.New([]string{s.TLSAddr()}, framework.WithTLS(cfg),
		framework.WithZKOptions(zk.WithDialer(countedDialer(&dials))))
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithTimeout(testContext(t), time.Minute)
	defer cancel()

	start := time.Now()
	err = c.WaitConnected(ctx)
	require.ErrorIs(t, err, framework.ErrTLSHandshake)
	var unknown x509.UnknownAuthorityError
	assert.ErrorAs(t, err, &unknown)
	assert.Contains(t, err.Error(), s.TLSAddr())
	assert.Less(t, time.Since(start), 20*time.Second, "given up at the refusal, not at the context's deadline")
	assert.ErrorIs(t, c.ConnectionError(), framework.ErrTLSHandshake)
	n := dials.Load()
	assert.Never(t, func() bool { return dials.Load() > n }, 3*time.Second, 50*time.Millisecond, "dialled again after giving up")
}

func TestTLS_AHostNameTheCertificateDoesNotNameFailsConnect(t *testing.T) {
	t.Parallel()
	s := tlsServer(t)
	cfg := s.TLS().ClientConfig("alice")
	cfg.ServerName = "zk.example.com"
	_, err := framework.Connect(testContext(t), []string{s.TLSAddr()}, framework.WithTLS(cfg))
	require.ErrorIs(t, err, framework.ErrTLSHandshake)
	var wrongHost x509.HostnameError
	assert.ErrorAs(t, err, &wrongHost)
	assert.Contains(t, err.Error(), `"zk.example.com"`)
}

// The server refuses a certificate of a CA it does not trust, and a
// client without a certificate (ssl.clientAuth=need).
func TestTLS_TheServerRefusingTheClientsCertificateFailsConnect(t *testing.T) {
	t.Parallel()
	s := tlsServer(t)
	for name, cfg := range map[string]*tls.Config{
		"untrusted": {RootCAs: s.TLS().CAPool(), Certificates: []tls.Certificate{zktesting.NewTLS().ClientCertificate("mallory")}},
		"none":      s.TLS().ClientConfig(""),
	} {
		_, err := framework.Connect(testContext(t), []string{s.TLSAddr()}, framework.WithTLS(cfg))
		require.ErrorIs(t, err, framework.ErrTLSHandshake, name)
		var op *net.OpError
		assert.True(t, errors.As(err, &op) && strings.Contains(op.Error(), "remote error"), "%s: the server's alert: %v", name, err)
	}
}

// A certificate the server trusts but whose identity the ACL does not
// name is refused every read and write of the node, and writes nothing.
func TestTLS_ACertificateTheACLDoesNotNameIsRefusedAndWritesNothing(t *testing.T) {
	t.Parallel()
	s := tlsServer(t)
	alice := connect(t, s.TLSAddr(), framework.WithTLS(s.TLS().ClientConfig("alice")))
	bob := connect(t, s.TLSAddr(), framework.WithTLS(s.TLS().ClientConfig("bob")))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, alice.EnsurePath(ctx, path))
	only := []zk.ACL{{Perms: zk.PermAll, Scheme: "x509", ID: zktesting.X509Identity("alice")}}
	_, err := alice.Create(ctx, path+"/alice", []byte("a"), framework.Persistent, framework.WithACL(only))
	require.NoError(t, err)

	_, err = bob.Set(ctx, path+"/alice", []byte("b"), -1)
	assert.ErrorIs(t, err, zk.ErrNoAuth)
	_, err = bob.Create(ctx, path+"/alice/child", nil, framework.Persistent)
	assert.ErrorIs(t, err, zk.ErrNoAuth)
	_, _, err = bob.Get(ctx, path+"/alice")
	assert.ErrorIs(t, err, zk.ErrNoAuth)

	data, stat, err := alice.Get(ctx, path+"/alice")
	require.NoError(t, err)
	assert.Equal(t, "a", string(data), "bob wrote nothing")
	assert.Zero(t, stat.NumChildren, "bob created nothing")
	assert.True(t, bob.IsConnected(), "a refused request does not cost bob his connection")
}

// Over TLS 1.3 a server judges the client's certificate after the
// client's side of the handshake is done: its refusal arrives on the
// first read, and fails Connect all the same.
func TestTLS_OverTLS13AClientWithoutACertificateFailsConnectAtOnce(t *testing.T) {
	t.Parallel()
	s := zktest.NewServer(t, zktesting.WithTLS(), zktesting.WithJavaOpts(
		"-Dzookeeper.ssl.protocol=TLSv1.3", "-Dzookeeper.ssl.enabledProtocols=TLSv1.3",
		"-Dzookeeper.ssl.ciphersuites=TLS_AES_128_GCM_SHA256,TLS_AES_256_GCM_SHA384"))
	cfg := s.TLS().ClientConfig("")
	cfg.MinVersion = tls.VersionTLS13
	ctx, cancel := context.WithTimeout(testContext(t), time.Minute)
	defer cancel()
	start := time.Now()
	_, err := framework.Connect(ctx, []string{s.TLSAddr()}, framework.WithTLS(cfg))
	require.ErrorIs(t, err, framework.ErrTLSHandshake)
	assert.Less(t, time.Since(start), 20*time.Second, "given up at the refusal, not at the context's deadline")

	ok := s.TLS().ClientConfig("alice")
	ok.MinVersion = tls.VersionTLS13
	c := connect(t, s.TLSAddr(), framework.WithTLS(ok))
	_, err = c.Create(testContext(t), "/alice", nil, framework.Ephemeral)
	assert.NoError(t, err, "a certificate of the CA is let in over TLS 1.3")
}
