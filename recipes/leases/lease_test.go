package leases_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
)

func TestNew_RejectsBadInput(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	node := framework.Node{Path: "/l/x", Name: "x", Session: c.Session()}
	tests := []struct {
		name   string
		client *framework.Client
		node   framework.Node
		opts   []leases.Option
	}{
		{"nil client", nil, node, nil},
		{"no path", c, framework.Node{Session: c.Session()}, nil},
		{"no session", c, framework.Node{Path: "/l/x"}, nil},
		{"nil option", c, node, []leases.Option{nil}},
		{"bad policy", c, node, []leases.Option{leases.WithErrorPolicy(framework.ErrorPolicy(5))}},
		{"zero max hold", c, node, []leases.Option{leases.WithMaxHold(0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := leases.Issue(tt.client, tt.node, nil, tt.opts...)
			require.ErrorIs(t, err, leases.ErrInvalidArgument)
			assert.Nil(t, l)
		})
	}
}

func TestLease_ReleaseDeletesTheNodeOnce(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	l := newLease(t, c, dir)
	assert.Equal(t, dir, zkpath.Parent(l.Node()))
	assert.Equal(t, []byte("d"), l.Data())
	assert.Same(t, c.Session(), l.Session())
	assert.Same(t, c, l.Client())
	assert.NoError(t, l.Err())

	before := requests()
	require.NoError(t, l.Release(ctx))
	assert.Equal(t, before+1, requests(), "one delete, and no watch was ever set")
	assert.False(t, exists(t, c, l.Node()))
	require.NoError(t, l.Release(ctx), "releasing twice is harmless")
	require.NoError(t, leases.ReleaseAll(ctx, l), "and so is releasing it among others")
	assert.Error(t, l.Err(), "a released lease says so")
	select {
	case <-l.Lost():
		t.Fatal("a released lease is not lost")
	default:
	}
}

// A deferred Release works after the acquire's context has ended.
func TestLease_ReleaseWithAnEndedContext(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	l := newLease(t, c, zktest.UniquePath(t))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.NoError(t, l.Release(ctx))
	assert.False(t, exists(t, c, l.Node()))
}

func TestLease_LostWhenSomeoneDeletesTheNode(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	l := newLease(t, c, zktest.UniquePath(t))
	lost := l.Lost()
	require.NoError(t, c.Delete(ctx, l.Node(), -1))
	waitClosed(t, lost, 10*time.Second, "the loss channel")
	require.ErrorIs(t, l.Err(), leases.ErrLost)
	require.ErrorIs(t, l.Release(ctx), leases.ErrLost, "the first release after a loss says so")
	require.NoError(t, l.Release(ctx))
}

func TestLease_FencingTokenIsTheNodesCreationZxid(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	l := newLease(t, c, zktest.UniquePath(t))
	_, stat, err := c.Get(ctx, l.Node())
	require.NoError(t, err)
	token, err := l.FencingToken(ctx)
	require.NoError(t, err)
	assert.Equal(t, stat.Czxid, token)
	require.NoError(t, l.Release(ctx))
}

func TestLease_FencingTokenOfAGoneNodeIsLost(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	l := newLease(t, c, zktest.UniquePath(t))
	require.NoError(t, c.Delete(ctx, l.Node(), -1))
	_, err := l.FencingToken(ctx)
	require.ErrorIs(t, err, leases.ErrLost)
}

// A session lease's token is read in its own session only: after that
// session is lost the answer is ErrLost, not the session change.
func TestLease_FencingTokenAfterItsSessionIsLost(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(2*time.Second))
	ctx := testContext(t)
	l := newLease(t, c, zktest.UniquePath(t))
	session := c.Session()
	proxy.Pause()
	waitClosed(t, session.Lost(), 20*time.Second, "the session's loss")
	proxy.Resume()
	require.NoError(t, c.WaitConnected(ctx))
	_, err := l.FencingToken(ctx)
	require.ErrorIs(t, err, leases.ErrLost)
}

func TestLease_LostWhenTheConnectionIsSuspended(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	observer := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	standard := newLease(t, c, dir)
	patient := newLease(t, c, dir, leases.WithErrorPolicy(framework.SessionErrorPolicy))

	proxy.Cut() // the client reconnects into the same session
	waitClosed(t, standard.Lost(), 10*time.Second, "the standard policy's loss channel")
	require.ErrorIs(t, standard.Err(), leases.ErrLost)
	require.Eventually(t, func() bool { return !exists(t, observer, standard.Node()) }, 10*time.Second, 10*time.Millisecond,
		"a lease given up on suspension is deleted once connected")
	assert.True(t, exists(t, observer, patient.Node()), "the session policy's lease survives a short disconnect")
	assert.NoError(t, patient.Err())
	require.NoError(t, patient.Release(ctx))
}

func TestLease_LostWhenTheSessionExpires(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(2*time.Second))
	observer := connect(t, zktest.Servers(t))
	l := newLease(t, c, zktest.UniquePath(t), leases.WithErrorPolicy(framework.SessionErrorPolicy))
	proxy.Pause()
	waitClosed(t, l.Lost(), 20*time.Second, "the loss channel")
	require.ErrorIs(t, l.Err(), leases.ErrLost)
	require.Eventually(t, func() bool { return !exists(t, observer, l.Node()) }, 20*time.Second, 20*time.Millisecond,
		"the node died with its session")
	proxy.Resume()
}

func TestLease_MaxHoldReleasesTheLease(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	l := newLease(t, c, zktest.UniquePath(t), leases.WithMaxHold(200*time.Millisecond))
	start := time.Now()
	waitClosed(t, l.Lost(), 10*time.Second, "the loss channel")
	assert.GreaterOrEqual(t, time.Since(start), 150*time.Millisecond)
	require.ErrorIs(t, l.Err(), leases.ErrExpired)
	require.ErrorIs(t, l.Err(), leases.ErrLost)
	require.Eventually(t, func() bool { return !exists(t, c, l.Node()) }, 10*time.Second, 10*time.Millisecond,
		"the node is deleted")
	require.ErrorIs(t, l.Release(ctx), leases.ErrExpired)
}

func TestReleaseAll_OneRequestForLeasesOfOneSession(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	other := connect(t, servers)
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	ls := []*leases.Lease{newLease(t, c, dir), newLease(t, c, dir), newLease(t, c, dir)}

	before := requests()
	require.NoError(t, leases.ReleaseAll(ctx, append(ls, nil)...))
	assert.Equal(t, before+1, requests(), "one transaction")
	for _, l := range ls {
		assert.False(t, exists(t, c, l.Node()))
	}

	// Leases of two sessions, one of them gone already: each is released.
	a, b := newLease(t, c, dir), newLease(t, other, dir)
	require.NoError(t, other.Delete(ctx, b.Node(), -1))
	require.NoError(t, leases.ReleaseAll(ctx, a, b))
	assert.False(t, exists(t, c, a.Node()))
}

// A lease made on a session that is already lost is lost when it is handed
// out: its Lost channel is closed before New returns, not a moment later
// on the watch's goroutine (found by the chaos run).
func TestLease_OfALostSessionIsLostWhenHandedOut(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(2*time.Second))
	ctx := testContext(t)
	node, err := c.CreateProtected(ctx, zktest.UniquePath(t)+"/lease-", nil, framework.EphemeralSequential, framework.WithParents())
	require.NoError(t, err)
	proxy.Pause()
	defer proxy.Resume()
	zktest.WaitClosed(t, node.Session.Lost(), 15*time.Second, "the session's loss")

	for range 50 {
		l, err := leases.Issue(c, node, nil)
		require.NoError(t, err)
		select {
		case <-l.Lost():
			require.ErrorIs(t, l.Err(), leases.ErrLost)
		default:
			t.Fatal("a lease of a lost session was handed out with Lost still open")
		}
	}
}
