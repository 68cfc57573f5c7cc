package zktesting_test

import (
	"crypto/tls"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/zktesting"
)

// dialTLS opens a go-zookeeper session over TLS on addr with cfg, closed
// at the end of the test.
func dialTLS(t *testing.T, addr string, cfg *tls.Config) *zk.Conn {
	t.Helper()
	dialer := func(network, address string, timeout time.Duration) (net.Conn, error) {
		return tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, network, address, cfg)
	}
	conn, _, err := zk.Connect([]string{addr}, 5*time.Second, zk.WithLogInfo(false), zk.WithLogger(&clientLog{}), zk.WithDialer(dialer))
	require.NoError(t, err)
	t.Cleanup(conn.Close)
	awaitSession(t, conn)
	return conn
}

func TestStart_WithTLSServesAClientCertificateOfItsAuthorityBesideThePlainPort(t *testing.T) {
	t.Parallel()
	integration(t)
	s := start(t, zktesting.WithTLS())
	require.NotNil(t, s.TLS())
	assert.True(t, strings.HasPrefix(s.TLSAddr(), "127.0.0.1:"), s.TLSAddr())
	assert.NotEqual(t, s.Addr(), s.TLSAddr())

	secure := dialTLS(t, s.TLSAddr(), s.TLS().ClientConfig("alice"))
	acl := zk.ACL{Perms: zk.PermAll, Scheme: "x509", ID: zktesting.X509Identity("alice")}
	_, err := secure.Create("/alice", []byte("a"), 0, []zk.ACL{acl})
	require.NoError(t, err, "the x509 provider takes the certificate's subject as the client's identity")
	data, _, err := secure.Get("/alice")
	require.NoError(t, err)
	assert.Equal(t, "a", string(data))

	plain := dial(t, s.Addr(), 5*time.Second)
	_, _, err = plain.Get("/alice")
	assert.ErrorIs(t, err, zk.ErrNoAuth, "a client without the certificate is not alice")
	ruok, err := zktesting.FourLetterWord(testContext(t), s.Addr(), "ruok")
	require.NoError(t, err)
	assert.Equal(t, "imok", ruok)

	require.NoError(t, s.Restart(testContext(t)))
	again := dialTLS(t, s.TLSAddr(), s.TLS().ClientConfig("alice"))
	_, _, err = again.Get("/alice")
	assert.NoError(t, err, "the TLS port and its stores survive a restart")
}

func TestServer_WithoutTLSHasNoTLSAddress(t *testing.T) {
	t.Parallel()
	integration(t)
	s := start(t)
	assert.Empty(t, s.TLSAddr())
	assert.Nil(t, s.TLS())
}
