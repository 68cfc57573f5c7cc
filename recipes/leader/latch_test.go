package leader_test

import (
	"context"
	"path"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// latchNode is Curator's latch node name: protected, latch-, sequence.
var latchNode = regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-latch-[0-9]{10}$`)

// Three latches, each in its own session: exactly one leads, the first in
// line; closing it hands leadership to the next, and so on.
func TestLatch_OneLeaderAmongThreeAndCloseHandsOn(t *testing.T) {
	servers := zktest.Servers(t)
	observer := connect(t, servers)
	p := zktest.UniquePath(t)
	var latches []*leader.Latch
	for i, id := range []string{"a", "b", "c"} {
		latches = append(latches, startLatch(t, connect(t, servers), p, leader.WithID(id)))
		require.Eventually(t, func() bool { return len(children(t, observer, p)) == i+1 }, 10*time.Second, 5*time.Millisecond, "%s queued", id)
	}
	for i, l := range latches {
		lead := await(t, l, 10*time.Second, l.ID())
		assert.Equal(t, 1, leaders(latches[i:]...), "one leader among the latches left")
		assert.Equal(t, []string{"a", "b", "c"}[i:], queueIDs(t, observer, p))
		assert.Equal(t, l.ID(), lead.ID())
		assert.Equal(t, p, path.Dir(lead.Node()))
		for _, waiter := range latches[i+1:] {
			notLeading(t, waiter, 50*time.Millisecond, waiter.ID())
		}
		require.NoError(t, l.Close(testContext(t)))
		// The delete was acknowledged before Close returned.
		assert.NotContains(t, children(t, observer, p), path.Base(lead.Node()))
		waitClosed(t, lead.Lost(), time.Second, "the closed leader's term")
		require.ErrorIs(t, lead.Err(), leader.ErrClosed)
		assert.Equal(t, leader.Closed, l.State())
	}
	assert.Empty(t, children(t, observer, p))
}

// The node is Curator's: protected ephemeral-sequential, latch-, the id
// as data; the default id "" is no data.
func TestLatch_NodeIsCuratorsLatchNode(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	for _, id := range []string{"", "participant-1"} {
		p := zktest.UniquePath(t)
		lead := await(t, startLatch(t, c, p, leader.WithID(id)), 10*time.Second, "the only latch")
		name := path.Base(lead.Node())
		assert.Regexp(t, latchNode, name)
		data, stat, err := c.Get(testContext(t), lead.Node())
		require.NoError(t, err)
		assert.Equal(t, id, string(data))
		assert.Equal(t, c.Session().ID(), stat.EphemeralOwner)
		token, err := lead.FencingToken(testContext(t))
		require.NoError(t, err)
		assert.Equal(t, stat.Czxid, token)
	}
}

// Resign ends the term with ErrResigned and deletes the node; the next in
// line leads, and the latch queues again at the tail, where it leads once
// the others have gone.
func TestLatch_ResignRejoinsAtTheTail(t *testing.T) {
	servers := zktest.Servers(t)
	observer := connect(t, servers)
	p := zktest.UniquePath(t)
	a := startLatch(t, connect(t, servers), p, leader.WithID("a"))
	lead := await(t, a, 10*time.Second, "a")
	// Start returns before the node is queued: b is in line before c joins.
	b := startLatch(t, connect(t, servers), p, leader.WithID("b"))
	require.Eventually(t, func() bool { return len(children(t, observer, p)) == 2 }, 10*time.Second, 5*time.Millisecond)
	c := startLatch(t, connect(t, servers), p, leader.WithID("c"))
	require.Eventually(t, func() bool { return len(children(t, observer, p)) == 3 }, 10*time.Second, 5*time.Millisecond)

	require.NoError(t, a.Resign(testContext(t)))
	waitClosed(t, lead.Lost(), time.Second, "the resigned term")
	require.ErrorIs(t, lead.Err(), leader.ErrResigned)
	assert.NotContains(t, children(t, observer, p), path.Base(lead.Node()), "deleted when Resign returned")
	await(t, b, 10*time.Second, "b")
	require.Eventually(t, func() bool {
		ids := queueIDs(t, observer, p)
		return len(ids) == 3 && ids[2] == "a"
	}, 10*time.Second, 5*time.Millisecond, "a queued again at the tail")
	assert.Equal(t, []string{"b", "c", "a"}, queueIDs(t, observer, p))
	assert.Equal(t, leader.Started, a.State())
	require.NoError(t, a.Resign(testContext(t)), "resigning while not leading changes nothing")

	require.NoError(t, b.Close(testContext(t)))
	require.NoError(t, c.Close(testContext(t)))
	again := await(t, a, 10*time.Second, "a again")
	assert.NotEqual(t, lead.Node(), again.Node())
	assert.Equal(t, []string{"a"}, queueIDs(t, observer, p))
}

// An Await whose ctx ends returns ctx's error and leaves the latch in
// line: it leads when its turn comes.
func TestLatch_AwaitWhoseContextEndsLeavesTheLatchInLine(t *testing.T) {
	servers := zktest.Servers(t)
	observer := connect(t, servers)
	p := zktest.UniquePath(t)
	a := startLatch(t, connect(t, servers), p, leader.WithID("a"))
	await(t, a, 10*time.Second, "a")
	b := startLatch(t, connect(t, servers), p, leader.WithID("b"))
	require.Eventually(t, func() bool { return len(children(t, observer, p)) == 2 }, 10*time.Second, 5*time.Millisecond)

	ctx, cancel := context.WithCancel(testContext(t))
	cancel()
	_, err := b.Await(ctx)
	require.ErrorIs(t, err, context.Canceled)
	notLeading(t, b, 100*time.Millisecond, "b")
	assert.Equal(t, []string{"a", "b"}, queueIDs(t, observer, p), "b is still in line")
	require.NoError(t, a.Close(testContext(t)))
	await(t, b, 10*time.Second, "b")
}

// The end of the context given to Start makes the latch leave, leading
// or waiting: a term ends with ctx's error, the node is deleted, and
// Await says the latch has left.
func TestLatch_StartContextEndLeavesTheElection(t *testing.T) {
	servers := zktest.Servers(t)
	observer := connect(t, servers)
	for _, waiting := range []bool{false, true} {
		p := zktest.UniquePath(t)
		if waiting {
			await(t, startLatch(t, connect(t, servers), p), 10*time.Second, "the leader")
		}
		l, err := leader.NewLatch(connect(t, servers), p)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		require.NoError(t, l.Start(ctx))
		var lead *leader.Leadership
		if waiting {
			require.Eventually(t, func() bool { return len(children(t, observer, p)) == 2 }, 10*time.Second, 5*time.Millisecond)
		} else {
			lead = await(t, l, 10*time.Second, "the latch")
		}
		cancel()
		if lead != nil {
			waitClosed(t, lead.Lost(), 5*time.Second, "the term")
			require.ErrorIs(t, lead.Err(), context.Canceled)
		}
		require.Eventually(t, func() bool { return l.State() == leader.Closed }, 10*time.Second, 5*time.Millisecond)
		_, err = l.Await(testContext(t))
		require.ErrorIs(t, err, leader.ErrClosed)
		require.ErrorIs(t, err, context.Canceled)
		want := 0
		if waiting {
			want = 1
		}
		require.Eventually(t, func() bool { return len(children(t, observer, p)) == want }, 10*time.Second, 5*time.Millisecond)
	}
}

// Calls out of turn fail with typed errors, and nothing is written.
func TestLatch_CallsOutOfTurn(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	p := zktest.UniquePath(t)
	l, err := leader.NewLatch(c, p)
	require.NoError(t, err)
	ctx := testContext(t)
	assert.Equal(t, leader.Latent, l.State())
	_, err = l.Await(ctx)
	require.ErrorIs(t, err, leader.ErrNotStarted)
	require.ErrorIs(t, l.Resign(ctx), leader.ErrNotStarted)
	assert.False(t, l.HasLeadership())
	ended, cancel := context.WithCancel(ctx)
	cancel()
	require.ErrorIs(t, l.Start(ended), context.Canceled)
	assert.Equal(t, leader.Latent, l.State())
	require.NoError(t, l.Start(ctx))
	require.ErrorIs(t, l.Start(ctx), leader.ErrStarted)
	await(t, l, 10*time.Second, "the latch")
	require.NoError(t, l.Close(ctx))
	require.NoError(t, l.Close(ctx), "a second Close")
	require.ErrorIs(t, l.Start(ctx), leader.ErrClosed)
	_, err = l.Await(ctx)
	require.ErrorIs(t, err, leader.ErrClosed)
	require.ErrorIs(t, l.Resign(ctx), leader.ErrClosed)

	never, err := leader.NewLatch(c, zktest.UniquePath(t))
	require.NoError(t, err)
	require.NoError(t, never.Close(ctx), "closing a latch never started")
	require.ErrorIs(t, never.Start(ctx), leader.ErrClosed)
	ok, _, err := c.Exists(ctx, never.Path())
	require.NoError(t, err)
	assert.False(t, ok)
}

// Done closes once the latch has left, as every recipe's that runs in the
// background; Err is nil after Close, and says why after the end of
// Start's ctx.
func TestLatch_DoneClosesOnceItLeftAndErrSaysWhy(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	closed, err := leader.NewLatch(c, zktest.UniquePath(t))
	require.NoError(t, err)
	require.NoError(t, closed.Start(context.Background()))
	await(t, closed, 10*time.Second, "the closed latch")
	select {
	case <-closed.Done():
		t.Fatal("Done closed while the latch takes part")
	default:
	}
	assert.NoError(t, closed.Err(), "while it takes part")
	require.NoError(t, closed.Close(testContext(t)))
	waitClosed(t, closed.Done(), time.Second, "Done after Close")
	assert.NoError(t, closed.Err(), "closed, not stopped on its own")

	ctx, cancel := context.WithCancel(context.Background())
	ended, err := leader.NewLatch(c, zktest.UniquePath(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = ended.Close(context.Background()) })
	require.NoError(t, ended.Start(ctx))
	await(t, ended, 10*time.Second, "the latch whose ctx ends")
	cancel()
	waitClosed(t, ended.Done(), 10*time.Second, "Done after the end of Start's ctx")
	require.ErrorIs(t, ended.Err(), context.Canceled)
	require.ErrorIs(t, ended.Err(), leader.ErrClosed)
}
