package zksasl_test

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zksasl"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// saslServer starts a server that knows bob (password bobsecret) by SASL
// DIGEST-MD5 and reads ACLs of the sasl scheme, as a Kafka setup without
// Kerberos configures it.
func saslServer(t *testing.T) *zktesting.Server {
	t.Helper()
	jaas := filepath.Join(t.TempDir(), "jaas.conf")
	require.NoError(t, os.WriteFile(jaas, []byte(`Server {
  org.apache.zookeeper.server.auth.DigestLoginModule required
  user_bob="bobsecret";
};
`), 0o600))
	return zktest.NewServer(t, zktesting.WithJavaOpts(
		"-Djava.security.auth.login.config="+jaas,
		"-Dzookeeper.authProvider.sasl=org.apache.zookeeper.server.auth.SASLAuthenticationProvider"))
}

// asBob is the client option of a client that authenticates as bob.
func asBob(password string) framework.Option {
	return framework.WithZKOptions(zk.WithDialer(zksasl.Dialer(nil, "bob", password)))
}

// bobsNode creates a node that only sasl:bob may read, with a client that
// is not bob.
func bobsNode(t *testing.T, addr string) string {
	t.Helper()
	path := zktest.UniquePath(t)
	_, err := zktest.Connect(t, addr).Create(zktest.Context(t), path, []byte("bob's"), framework.Persistent,
		framework.WithParents(), framework.WithACL([]zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "bob"}}))
	require.NoError(t, err)
	return path
}

func TestDialer_AuthenticatesSoThatASaslACLLetsTheClientIn(t *testing.T) {
	server := saslServer(t)
	path := bobsNode(t, server.Addr())
	ctx := zktest.Context(t)

	_, _, err := zktest.Connect(t, server.Addr()).Get(ctx, path)
	require.ErrorIs(t, err, zk.ErrNoAuth, "a client that is not bob is kept out")

	data, _, err := zktest.Connect(t, server.Addr(), asBob("bobsecret")).Get(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, "bob's", string(data))
}

// The server forgets the identity with the connection: a client that
// reconnects into its session authenticates again on the new connection.
func TestDialer_AuthenticatesAgainOnEveryConnectionOfTheSession(t *testing.T) {
	server := saslServer(t)
	path := bobsNode(t, server.Addr())
	proxy := zktest.NewProxy(t, server.Addr())
	ctx := zktest.Context(t)
	client := zktest.Connect(t, proxy.Addr(), asBob("bobsecret"))
	states := make(chan framework.StateChange, 16)
	remove := client.AddListener(func(s framework.StateChange) { states <- s })
	t.Cleanup(remove)
	_, _, err := client.Get(ctx, path)
	require.NoError(t, err)
	session := client.Session().ID()
	exchanges := proxy.Requests(102)
	assert.Equal(t, int64(2), exchanges, "DIGEST-MD5: an empty token, then the response")

	for range 3 {
		proxy.Cut()
		waitReconnected(t, states)
		data, _, err := client.Get(ctx, path)
		require.NoError(t, err)
		assert.Equal(t, "bob's", string(data))
	}
	assert.Equal(t, session, client.Session().ID(), "the same session throughout")
	assert.Equal(t, exchanges+3*2, proxy.Requests(102), "an exchange on each connection")
}

// waitReconnected waits for the client to say it is back in its session.
func waitReconnected(t *testing.T, states <-chan framework.StateChange) {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case s := <-states:
			if s.State == framework.Reconnected {
				require.False(t, s.NewSession, "reconnected into the same session")
				return
			}
		case <-timeout:
			t.Fatal("no reconnect within a minute")
		}
	}
}

// A wrong password gets no session: the server refuses the exchange and
// closes the connection before go-zookeeper has seen the connect response.
func TestDialer_WrongPasswordGetsNoSession(t *testing.T) {
	server := saslServer(t)
	proxy := zktest.NewProxy(t, server.Addr())
	client, err := framework.New([]string{proxy.Addr()}, asBob("guess"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	ctx, cancel := context.WithTimeout(zktest.Context(t), 3*time.Second)
	defer cancel()
	err = client.WaitConnected(ctx)
	require.Error(t, err)
	assert.False(t, client.IsConnected())
	assert.GreaterOrEqual(t, proxy.Requests(102), int64(2), "it tried")
}

// A server that lets no one in without SASL (enforce.auth.schemes=sasl)
// lets the client in: its exchange comes before any request of
// go-zookeeper's. A client without it is refused.
func TestDialer_PassesAServerThatEnforcesSasl(t *testing.T) {
	jaas := filepath.Join(t.TempDir(), "jaas.conf")
	require.NoError(t, os.WriteFile(jaas, []byte(`Server {
  org.apache.zookeeper.server.auth.DigestLoginModule required
  user_bob="bobsecret";
};
`), 0o600))
	server := zktest.NewServer(t, zktesting.WithJavaOpts(
		"-Djava.security.auth.login.config="+jaas,
		"-Dzookeeper.authProvider.sasl=org.apache.zookeeper.server.auth.SASLAuthenticationProvider",
		"-Dzookeeper.enforce.auth.enabled=true", "-Dzookeeper.enforce.auth.schemes=sasl"))
	ctx := zktest.Context(t)
	bob := zktest.Connect(t, server.Addr(), asBob("bobsecret"))
	path := zktest.UniquePath(t)
	_, err := bob.Create(ctx, path, []byte("x"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)

	// The server gives a plain client a session, and closes it at its first
	// request (SESSIONCLOSEDREQUIRESASLAUTH, -124, which go-zookeeper
	// does not name).
	plain := zktest.Connect(t, server.Addr())
	_, _, err = plain.Get(ctx, path)
	assert.Error(t, err, "a client without SASL is refused")
}

// The connection says why: the first Read, go-zookeeper's read of the
// connect response, fails with the framework's ErrAuthFailed.
func TestDialer_WrongPasswordFailsTheConnectResponsesRead(t *testing.T) {
	server := saslServer(t)
	conn, err := zksasl.Dialer(nil, "bob", "guess")("tcp", server.Addr(), 5*time.Second)
	require.NoError(t, err)
	defer conn.Close()
	// A connect request: protocol version, last zxid, timeout, session,
	// password (16 bytes), read-only.
	req := binary.BigEndian.AppendUint32(nil, 0)
	req = binary.BigEndian.AppendUint64(req, 0)
	req = binary.BigEndian.AppendUint32(req, 4000)
	req = binary.BigEndian.AppendUint64(req, 0)
	req = binary.BigEndian.AppendUint32(req, 16)
	req = append(req, make([]byte, 16)...)
	req = append(req, 0)
	_, err = conn.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(req))), req...))
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(30*time.Second)))
	_, err = conn.Read(make([]byte, 64))
	require.ErrorIs(t, err, framework.ErrAuthFailed)
	require.ErrorIs(t, err, zk.ErrAuthFailed, "the server's AUTHFAILED")
}
