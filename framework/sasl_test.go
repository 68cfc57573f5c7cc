package framework_test

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// opSASL is ZooKeeper's sasl request, which the proxy counts.
const opSASL = 102

// asBob authenticates a client as bob, whom saslServer knows.
var asBob = framework.WithSASL("bob", "bobsecret")

// saslServer starts a server that knows bob by SASL DIGEST-MD5 and reads
// ACLs of the sasl scheme.
func saslServer(t *testing.T, opts ...zktesting.Option) *zktesting.Server {
	t.Helper()
	return zktest.NewServer(t, append([]zktesting.Option{zktesting.WithSASLUsers(map[string]string{"bob": "bobsecret"})}, opts...)...)
}

// bobsNode creates a node (and its parents) that only sasl:bob may use,
// with a client that is not bob.
func bobsNode(t *testing.T, addr string) string {
	t.Helper()
	path := zktest.UniquePath(t)
	_, err := connect(t, addr).Create(testContext(t), path, []byte("bob's"), framework.Persistent,
		framework.WithParents(), framework.WithACL([]zk.ACL{{Perms: zk.PermAll, Scheme: "sasl", ID: "bob"}}))
	require.NoError(t, err)
	return path
}

// The subtests share one server: each JVM costs seconds.
func TestSASL(t *testing.T) {
	server := saslServer(t)
	for name, test := range map[string]func(*testing.T, string){
		"ASaslACLLetsTheClientInAndAPlainClientNot":             saslACLLetsTheClientIn,
		"EveryConnectionOfTheSessionAuthenticatesAgain":         saslEveryConnectionAuthenticates,
		"ANewSessionAfterAnExpiryAuthenticatesAgain":            saslNewSessionAuthenticates,
		"AMutexIsTakenAndGivenBackAsBob":                        saslMutex,
		"AWrongPasswordFailsFastWithErrAuthFailedAndStopsThere": saslWrongPassword,
		"RunsInsideATLSConnectionOfTheBaseDialer":               saslOverTLS,
		"AnExchangeWhoseAnswerIsLostIsTriedAgain":               saslLostAnswer,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, server.Addr())
		})
	}
}

func saslACLLetsTheClientIn(t *testing.T, addr string) {
	path := bobsNode(t, addr)
	ctx := testContext(t)

	_, _, err := connect(t, addr).Get(ctx, path)
	require.ErrorIs(t, err, zk.ErrNoAuth, "a client that is not bob is kept out")

	data, _, err := connect(t, addr, asBob).Get(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, "bob's", string(data))
}

// The server forgets the identity with the connection: a client that
// reconnects into its session authenticates again on the new connection,
// before it announces the session.
func saslEveryConnectionAuthenticates(t *testing.T, addr string) {
	path := bobsNode(t, addr)
	proxy := zktest.NewProxy(t, addr)
	ctx := testContext(t)
	client := connect(t, proxy.Addr(), asBob)
	states := recordStates(client)
	session := client.Session().ID()
	exchanges := proxy.Requests(opSASL)
	assert.Equal(t, int64(2), exchanges, "DIGEST-MD5: an empty token, then the response")

	for range 3 {
		proxy.Cut()
		for s := states.next(t, time.Minute); s.State != framework.Reconnected; s = states.next(t, time.Minute) {
		}
		data, _, err := client.Get(ctx, path)
		require.NoError(t, err, "the session was announced before the identity was back")
		assert.Equal(t, "bob's", string(data))
	}
	assert.Equal(t, session, client.Session().ID(), "the same session throughout")
	assert.Equal(t, exchanges+3*2, proxy.Requests(opSASL), "an exchange on each connection")
}

// The session expires while the client is cut off, through a dialer of
// the caller's own, under which the exchange runs: the new session's
// connection authenticates too.
func saslNewSessionAuthenticates(t *testing.T, addr string) {
	path := bobsNode(t, addr)
	faults := zktesting.NewFaults()
	var dials atomic.Int64
	dial := func(network, address string, timeout time.Duration) (net.Conn, error) {
		dials.Add(1)
		return faults.Dial(network, address, timeout)
	}
	ctx := testContext(t)
	client := connect(t, addr, asBob, framework.WithSessionTimeout(shortSession), framework.WithZKOptions(zk.WithDialer(dial)))
	states := recordStates(client)
	old := client.Session().ID()

	require.NoError(t, faults.ExpireSession(ctx, addr, old))
	for s := states.next(t, time.Minute); !(s.State == framework.Reconnected && s.NewSession); s = states.next(t, time.Minute) {
	}
	assert.NotEqual(t, old, client.Session().ID())
	data, _, err := client.Get(ctx, path)
	require.NoError(t, err, "the new session was announced without the identity")
	assert.Equal(t, "bob's", string(data))
	assert.GreaterOrEqual(t, dials.Load(), int64(2), "the caller's dialer made every connection")
}

// bob's mutex is a node only bob may use: bob's clients take and give it
// back in turn, a plain client cannot even queue.
func saslMutex(t *testing.T, addr string) {
	path := bobsNode(t, addr)
	ctx := testContext(t)
	first, err := mutex.New(connect(t, addr, asBob), path)
	require.NoError(t, err)
	second, err := mutex.New(connect(t, addr, asBob), path)
	require.NoError(t, err)
	plain, err := mutex.New(connect(t, addr), path)
	require.NoError(t, err)

	hold, err := first.Acquire(ctx)
	require.NoError(t, err)
	_, err = second.TryAcquire(ctx)
	require.ErrorIs(t, err, mutex.ErrNotAcquired)
	_, err = plain.TryAcquire(ctx)
	require.ErrorIs(t, err, zk.ErrNoAuth)
	require.NoError(t, hold.Release(ctx))

	hold, err = second.Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, hold.Release(ctx))
	assert.Empty(t, zktest.Children(t, connect(t, addr, asBob), path), "nothing left behind")
}

// The server refuses a wrong password: WaitConnected says so at once, and
// so does every call, and the client tries no more.
func saslWrongPassword(t *testing.T, addr string) {
	proxy := zktest.NewProxy(t, addr)
	client, err := framework.New([]string{proxy.Addr()}, framework.WithSASL("bob", "guess"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	ctx, cancel := context.WithTimeout(testContext(t), 30*time.Second)
	defer cancel()

	err = client.WaitConnected(ctx)
	require.ErrorIs(t, err, framework.ErrAuthFailed)
	assert.ErrorIs(t, err, zk.ErrAuthFailed, "the server's AUTHFAILED")
	assert.NotErrorIs(t, err, context.DeadlineExceeded, "the refusal is reported, not waited out")
	assert.Contains(t, err.Error(), `"bob"`)
	assert.ErrorIs(t, client.ConnectionError(), framework.ErrAuthFailed)
	assert.False(t, client.IsConnected())
	_, _, err = client.Get(ctx, "/")
	assert.ErrorIs(t, err, framework.ErrAuthFailed, "a call fails at once too")

	exchanges := proxy.Requests(opSASL)
	assert.Equal(t, int64(2), exchanges)
	// go-zookeeper alone connects again within a second, forever.
	assert.Never(t, func() bool { return proxy.Requests(opSASL) > exchanges }, 3*time.Second, 50*time.Millisecond,
		"the client tried again after the refusal")

	_, err = framework.Connect(ctx, []string{addr}, framework.WithSASL("bob", "guess"))
	assert.ErrorIs(t, err, framework.ErrAuthFailed, "Connect says so too")
	assert.NoError(t, ctx.Err())
}

// A connection lost in the middle of the exchange is no refusal: the
// client connects again and authenticates.
func saslLostAnswer(t *testing.T, addr string) {
	proxy := zktest.NewProxy(t, addr)
	proxy.DropNextReply(opSASL)
	client := connect(t, proxy.Addr(), asBob, framework.WithSessionTimeout(shortSession))
	assert.Equal(t, 1, proxy.DroppedReplies())
	assert.GreaterOrEqual(t, proxy.Requests(opSASL), int64(3), "the first exchange was given up and another made")
	assert.NoError(t, client.ConnectionError())
}

// A server that lets no one in without SASL (enforce.auth.schemes=sasl)
// lets the client in: its exchange comes before any request of
// go-zookeeper's. A client without it is refused.
func TestSASL_AServerThatEnforcesSASLLetsTheClientIn(t *testing.T) {
	t.Parallel()
	server := saslServer(t, zktesting.WithJavaOpts("-Dzookeeper.enforce.auth.enabled=true", "-Dzookeeper.enforce.auth.schemes=sasl"))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	_, err := connect(t, server.Addr(), asBob).Create(ctx, path, []byte("x"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)

	// The server gives a plain client a session, and closes it at its
	// first request (SESSIONCLOSEDREQUIRESASLAUTH, -124, which go-zookeeper
	// does not name).
	plain, err := framework.New([]string{server.Addr()}, framework.WithRetryPolicy(framework.RetryNTimes(0, 0)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = plain.Close() })
	_, _, err = plain.Get(ctx, path)
	assert.Error(t, err, "a client without SASL is refused")
}

// Bad input is refused by New, before anything is dialled.
func TestWithSASL_BadInputIsInvalidBeforeAnythingIsSent(t *testing.T) {
	var dials atomic.Int64
	dial := func(network, address string, timeout time.Duration) (net.Conn, error) {
		dials.Add(1)
		return net.DialTimeout(network, address, timeout)
	}
	for name, opts := range map[string][]framework.Option{
		"empty user":          {framework.WithSASL("", "pw")},
		"user not UTF-8":      {framework.WithSASL("b\xffb", "pw")},
		"password not UTF-8":  {framework.WithSASL("bob", "p\xffw")},
		"two SASL identities": {framework.WithSASL("bob", "pw"), framework.WithSASL("alice", "pw")},
	} {
		c, err := framework.New([]string{"127.0.0.1:2181"}, append(opts, framework.WithZKOptions(zk.WithDialer(dial)))...)
		assert.ErrorIs(t, err, framework.ErrInvalidArgument, name)
		assert.Nil(t, c, name)
	}
	assert.Zero(t, dials.Load())
}
