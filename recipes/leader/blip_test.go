package leader_test

import (
	"context"
	"path"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// A connection cut that the session survives ends the leader's term at
// the suspension (standard policy), and once reconnected the leader leads
// again with the same node, in a new term; the latch waiting behind it
// never leads meanwhile. Curator's testSessionErrorPolicy, standard
// branch.
func TestLatch_ConnectionBlipKeepsTheLeaderItsNode(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	ac := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	bc := connect(t, servers)
	p := zktest.UniquePath(t)
	a := startLatch(t, ac, p, leader.WithID("a"))
	aRec := newRecorder()
	a.AddListener(aRec.listen)
	first := await(t, a, 10*time.Second, "a")
	aRec.waitCalls(t, []string{"is"})
	b := startLatch(t, bc, p, leader.WithID("b"))
	bRec := newRecorder()
	b.AddListener(bRec.listen)
	require.Eventually(t, func() bool { return len(children(t, bc, p)) == 2 }, 10*time.Second, 5*time.Millisecond, "b queues")
	token, err := first.FencingToken(testContext(t))
	require.NoError(t, err)
	session := ac.Session()

	proxy.Cut()
	waitClosed(t, first.Lost(), 10*time.Second, "a's term")
	require.ErrorIs(t, first.Err(), leader.ErrLost)
	aRec.waitCalls(t, []string{"is", "not"})

	again := await(t, a, 10*time.Second, "a after the cut")
	require.Same(t, session, ac.Session(), "the session survived the cut")
	assert.NotSame(t, first, again, "a new term")
	assert.Equal(t, first.Node(), again.Node(), "the same node")
	assert.NoError(t, again.Err())
	assert.ErrorIs(t, first.Err(), leader.ErrLost, "the first term stays ended")
	againToken, err := again.FencingToken(testContext(t))
	require.NoError(t, err)
	assert.Equal(t, token, againToken, "the node's czxid: no one led in between")
	aRec.waitCalls(t, []string{"is", "not", "is"})
	checkGrant(t, ac, again)

	assert.Equal(t, []string{"a", "b"}, queueIDs(t, bc, p))
	assert.False(t, b.HasLeadership())
	calls, _ := bRec.seen()
	assert.Empty(t, calls, "b never led")
}

// A selector with auto-requeue whose term ends at a connection cut that
// the session survives runs its function again, in a new term on the same
// node, once reconnected; the selector waiting behind it never runs its
// function meanwhile.
func TestSelector_ConnectionBlipRunsTheFunctionAgainOnTheSameNode(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	ac := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	bc := connect(t, servers)
	p := zktest.UniquePath(t)
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	aTerms, bRan := make(chan *leader.Leadership, 10), make(chan struct{}, 10)
	a := newSelector(t, ac, p, func(ctx context.Context) error {
		lead, _ := leader.LeadershipFrom(ctx)
		aTerms <- lead
		<-ctx.Done()
		return context.Cause(ctx)
	}, leader.WithID("a"), leader.WithAutoRequeue())
	b := newSelector(t, bc, p, func(ctx context.Context) error {
		bRan <- struct{}{}
		<-ctx.Done()
		return nil
	}, leader.WithID("b"), leader.WithAutoRequeue())
	runs := make(chan error, 2)
	// Each ends with ctx.
	go func() { runs <- a.Run(ctx) }()
	first := <-aTerms
	go func() { runs <- b.Run(ctx) }()
	require.Eventually(t, func() bool { return len(children(t, bc, p)) == 2 }, 10*time.Second, 5*time.Millisecond, "b queues")
	session := ac.Session()

	proxy.Cut()
	waitClosed(t, first.Lost(), 10*time.Second, "a's first term")
	require.ErrorIs(t, first.Err(), leader.ErrLost)
	select {
	case again := <-aTerms:
		require.Same(t, session, ac.Session(), "the session survived the cut")
		assert.NotSame(t, first, again, "a new term")
		assert.Equal(t, first.Node(), again.Node(), "the same node")
		assert.NoError(t, again.Err())
	case <-bRan:
		t.Fatal("b led after a's blip")
	case <-time.After(10 * time.Second):
		t.Fatal("a did not lead again")
	}
	ps, err := b.Participants(testContext(t))
	require.NoError(t, err)
	var ids []string
	for _, pt := range ps {
		ids = append(ids, pt.ID)
	}
	assert.Equal(t, []string{"a", "b"}, ids)
	assert.Empty(t, bRan, "b never led")
	cancel()
	require.ErrorIs(t, <-runs, context.Canceled)
	require.ErrorIs(t, <-runs, context.Canceled)
}

// A leader whose session expires during a partition gives its place up:
// the latch behind it leads, and the old leader, back in a new session,
// queues a new node behind it rather than trusting its old one.
func TestLatch_ExpiredSessionGivesThePlaceUp(t *testing.T) {
	t.Parallel()
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	ac := connect(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	bc := connect(t, servers)
	p := zktest.UniquePath(t)
	a := startLatch(t, ac, p, leader.WithID("a"))
	first := await(t, a, 10*time.Second, "a")
	b := startLatch(t, bc, p, leader.WithID("b"))
	require.Eventually(t, func() bool { return len(children(t, bc, p)) == 2 }, 10*time.Second, 5*time.Millisecond, "b queues")
	old := ac.Session()

	proxy.Pause()
	waitClosed(t, first.Lost(), 10*time.Second, "a's term")
	await(t, b, 30*time.Second, "b once a's session has expired")
	waitClosed(t, old.Lost(), 30*time.Second, "a's old session")
	proxy.Resume()
	require.Eventually(t, func() bool {
		ids := queueIDs(t, bc, p)
		return len(ids) == 2 && ids[0] == "b"
	}, 30*time.Second, 10*time.Millisecond, "a queues again behind b")
	assert.NotContains(t, children(t, bc, p), path.Base(first.Node()), "a's old node is gone")
	assert.False(t, a.HasLeadership())
	assert.True(t, b.HasLeadership())
}
