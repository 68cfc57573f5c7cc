package reliability_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// The promises of the framework and the recipes, end to end over TLS: a
// server's secureClientPort (Netty) with client certificates, the client
// of framework.WithTLS, faults through the proxy, which carries the TLS
// bytes as they are.

// tlsSession is the session timeout the TLS tests ask for: short, so that
// an expiry takes seconds.
const tlsSession = 2 * time.Second

// tlsClient connects to addr over TLS with a certificate of s's CA for
// the subject CN=name.
func tlsClient(t *testing.T, s *zktesting.Server, addr, name string, opts ...framework.Option) *framework.Client {
	t.Helper()
	return zktest.Connect(t, addr, append([]framework.Option{framework.WithTLS(s.TLS().ClientConfig(name))}, opts...)...)
}

// nextState returns the next state change, failing the test after 20 s.
func nextState(t *testing.T, states <-chan framework.StateChange) framework.StateChange {
	t.Helper()
	select {
	case s := <-states:
		return s
	case <-time.After(20 * time.Second):
		t.Fatal("no state change within 20s")
		return framework.StateChange{}
	}
}

func TestTLS_ACutIsResumedInTheSameSessionWithItsLeaseAndWatches(t *testing.T) {
	t.Parallel()
	s := zktest.NewServer(t, zktesting.WithTLS())
	proxy := zktest.NewProxy(t, s.TLSAddr())
	c := tlsClient(t, s, proxy.Addr(), "alice", framework.WithSessionTimeout(4*time.Second))
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	w, err := c.Watch(ctx, path, framework.WatchPersistent)
	require.NoError(t, err)
	states := make(chan framework.StateChange, 100)
	c.AddListener(func(sc framework.StateChange) { states <- sc })
	session := c.Session()
	before, ok := session.LeaseDeadline()
	require.True(t, ok, "a lease over TLS")

	proxy.Cut()
	require.Equal(t, framework.Suspended, nextState(t, states).State)
	require.Equal(t, framework.Reconnected, nextState(t, states).State)
	assert.Same(t, session, c.Session(), "the same session")
	after, _ := session.LeaseDeadline()
	assert.False(t, after.Before(before), "the new connection's connect request goes on with the lease")
	assert.Equal(t, framework.WatchResumed, (<-w.Events()).Type)

	_, err = c.Set(ctx, path, []byte("x"), -1)
	require.NoError(t, err)
	ev := <-w.Events()
	assert.Equal(t, framework.NodeDataChanged, ev.Type, "the persistent watch was set again over TLS")
	results, err := c.MultiRead(ctx, framework.GetOp(path), framework.ChildrenOp(path))
	require.NoError(t, err, "multiRead, carried inside TLS")
	require.Len(t, results, 2)
	assert.Equal(t, "x", string(results[0].Data))
}

func TestTLS_ASessionThatExpiresIsLostAndANewOneServes(t *testing.T) {
	t.Parallel()
	s := zktest.NewServer(t, zktesting.WithTLS())
	proxy := zktest.NewProxy(t, s.TLSAddr())
	c := tlsClient(t, s, proxy.Addr(), "alice", framework.WithSessionTimeout(tlsSession))
	observer := tlsClient(t, s, s.TLSAddr(), "observer")
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	node, err := c.Create(ctx, path+"/eph", nil, framework.Ephemeral)
	require.NoError(t, err)
	old := c.Session()

	proxy.Pause()
	zktest.WaitClosed(t, old.Lost(), 20*time.Second, "the session's loss")
	require.Eventually(t, func() bool {
		ok, _, err := observer.Exists(ctx, node)
		return err == nil && !ok
	}, 30*time.Second, 20*time.Millisecond, "the server expires the session and its node")
	proxy.Resume()
	require.NoError(t, c.WaitConnected(ctx))
	require.NotEqual(t, old.ID(), c.Session().ID(), "a new session")
	require.NoError(t, c.EnsurePath(ctx, path), "its parent, a container, was reaped with the node")
	_, err = c.Create(ctx, path+"/again", nil, framework.Ephemeral)
	assert.NoError(t, err, "the new session serves")
}

func TestTLS_AMutexExcludesAndHandsOverAndACutEndsTheHold(t *testing.T) {
	t.Parallel()
	s := zktest.NewServer(t, zktesting.WithTLS())
	proxy := zktest.NewProxy(t, s.TLSAddr())
	a := tlsClient(t, s, proxy.Addr(), "a")
	b := tlsClient(t, s, s.TLSAddr(), "b")
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	ma, err := mutex.New(a, path)
	require.NoError(t, err)
	mb, err := mutex.New(b, path)
	require.NoError(t, err)

	hold, err := ma.Acquire(ctx)
	require.NoError(t, err)
	_, err = mb.TryAcquire(ctx)
	require.ErrorIs(t, err, mutex.ErrNotAcquired)
	require.NoError(t, hold.Release(ctx))
	second, err := mb.Acquire(ctx)
	require.NoError(t, err, "handed over")
	require.NoError(t, second.Release(ctx))

	hold, err = ma.Acquire(ctx)
	require.NoError(t, err)
	proxy.Cut()
	zktest.WaitClosed(t, hold.Lost(), 20*time.Second, "the hold's loss at the suspension")
	assert.ErrorIs(t, hold.Err(), mutex.ErrLost)
	_ = hold.Release(ctx)
	third, err := mb.Acquire(ctx)
	require.NoError(t, err)
	assert.NoError(t, third.Release(ctx))
	assert.Empty(t, zktest.Children(t, b, path), "nothing left behind")
}

func TestTLS_LeadershipPassesToTheNextLatchWhenTheLeaderCloses(t *testing.T) {
	t.Parallel()
	s := zktest.NewServer(t, zktesting.WithTLS())
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	first, err := leader.NewLatch(tlsClient(t, s, s.TLSAddr(), "a"), path, leader.WithID("a"))
	require.NoError(t, err)
	require.NoError(t, first.Start(ctx))
	term, err := first.Await(ctx)
	require.NoError(t, err)
	second, err := leader.NewLatch(tlsClient(t, s, s.TLSAddr(), "b"), path, leader.WithID("b"))
	require.NoError(t, err)
	require.NoError(t, second.Start(ctx))
	t.Cleanup(func() { _ = second.Close(zktest.Context(t)) })

	require.NoError(t, first.Close(ctx))
	zktest.WaitClosed(t, term.Lost(), 10*time.Second, "the first term's end")
	next, err := second.Await(ctx)
	require.NoError(t, err)
	assert.Equal(t, "b", next.ID())
}
