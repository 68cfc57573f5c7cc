package framework_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
)

// The exchange runs inside the connection the base dialer returns: here a
// TLS connection of the caller's dialer to a TLS terminator in front of
// the server, so every SASL byte crosses the TLS link.
func saslOverTLS(t *testing.T, addr string) {
	path := bobsNode(t, addr)
	front, handshakes, roots := tlsFront(t, addr)
	dial := func(network, address string, timeout time.Duration) (net.Conn, error) {
		d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: timeout}, Config: &tls.Config{RootCAs: roots, ServerName: "zookeeper.test"}}
		return d.Dial(network, address)
	}
	client := connect(t, front, asBob, framework.WithZKOptions(zk.WithDialer(dial)))

	data, _, err := client.Get(testContext(t), path)
	require.NoError(t, err)
	assert.Equal(t, "bob's", string(data))
	assert.GreaterOrEqual(t, handshakes.Load(), int64(1))
}

// tlsFront listens on loopback for TLS, with a certificate for
// zookeeper.test made here, and forwards each connection to addr in the
// clear. It returns its address, a count of completed TLS handshakes and
// the pool that trusts its certificate.
func tlsFront(t *testing.T, addr string) (string, *atomic.Int64, *x509.CertPool) {
	t.Helper()
	cert, roots := selfSigned(t, "zookeeper.test")
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	require.NoError(t, err)
	var handshakes atomic.Int64
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Add(1)
	// Ends when the cleanup closes the listener.
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			// Ends when either side of the link closes.
			go func() {
				defer wg.Done()
				forwardTLS(conn.(*tls.Conn), addr, &handshakes)
			}()
		}
	}()
	return ln.Addr().String(), &handshakes, roots
}

// forwardTLS completes the handshake of in and copies bytes between it and
// a plain connection to addr until either closes.
func forwardTLS(in *tls.Conn, addr string, handshakes *atomic.Int64) {
	defer in.Close()
	if in.Handshake() != nil {
		return
	}
	handshakes.Add(1)
	out, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	defer out.Close()
	done := make(chan struct{}, 2)
	// Each ends when its source closes or fails.
	go func() { _, _ = io.Copy(out, in); done <- struct{}{} }()
	go func() { _, _ = io.Copy(in, out); done <- struct{}{} }()
	<-done
}

// selfSigned makes a certificate for name and a pool that trusts it.
func selfSigned(t *testing.T, name string) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, roots
}
