package leader_test

import (
	"context"
	pathpkg "path"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// With the server out of reach from the start, Await ends with its ctx,
// never with a term, and Close returns; once the server is back, nothing
// of the latch is left on it.
func TestLatch_UnreachableServerAwaitEndsWithItsContextAndCloseLeavesNothing(t *testing.T) {
	t.Parallel()
	servers := zktest.Servers(t)
	observer := connect(t, servers)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	p := zktest.UniquePath(t)
	proxy.Pause()
	l := startLatch(t, c, p)
	notLeading(t, l, 500*time.Millisecond, "a latch that cannot reach the server")
	assert.False(t, l.HasLeadership())
	require.NoError(t, l.Close(testContext(t)))
	proxy.Resume()
	require.Eventually(t, func() bool { return c.IsConnected() }, 10*time.Second, 5*time.Millisecond)
	// A create sent into the partition may surface later: the client looks
	// for it by its protection id, at once and 1 s and 5 s later.
	require.Never(t, func() bool {
		names, _, err := observer.Children(context.Background(), p)
		return err == nil && len(names) > 0
	}, 1500*time.Millisecond, 20*time.Millisecond)
}

// Close ends the term at once, before the delete, even when the server
// cannot be reached: a Close whose ctx ends first says so, and the node is
// deleted once the server is back.
func TestLatch_CloseEndsTheTermBeforeTheDeleteIsAcknowledged(t *testing.T) {
	servers := zktest.Servers(t)
	observer := connect(t, servers)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	p := zktest.UniquePath(t)
	l := startLatch(t, c, p, leader.WithErrorPolicy(framework.SessionErrorPolicy))
	lead := await(t, l, 10*time.Second, "the latch")
	proxy.Pause()
	ctx, cancel := context.WithTimeout(testContext(t), 300*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, l.Close(ctx), context.DeadlineExceeded)
	waitClosed(t, lead.Lost(), time.Second, "the term")
	require.ErrorIs(t, lead.Err(), leader.ErrClosed)
	assert.False(t, l.HasLeadership())
	assert.Equal(t, []string{pathpkg.Base(lead.Node())}, children(t, observer, p), "the node stands while the server is out of reach")
	proxy.Resume()
	require.Eventually(t, func() bool { return len(children(t, observer, p)) == 0 }, 15*time.Second, 10*time.Millisecond)
	require.NoError(t, l.Close(testContext(t)), "a second Close waits for the first")
}

// A create whose answer is lost leaves one node, the latch's, which leads.
func TestLatch_CreateWhoseAnswerIsLostLeavesOneNode(t *testing.T) {
	servers := zktest.Servers(t)
	observer := connect(t, servers)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr())
	p := zktest.UniquePath(t)
	require.NoError(t, observer.EnsurePath(testContext(t), p))
	proxy.DropNextCreateReply()
	l := startLatch(t, c, p)
	lead := await(t, l, 20*time.Second, "the latch")
	assert.Equal(t, 1, proxy.DroppedReplies())
	assert.Equal(t, []string{pathpkg.Base(lead.Node())}, children(t, observer, p))
	checkGrant(t, c, lead)
}

// A latch that cannot create its node (the election's directory refuses
// it) leaves with that error: Await returns it, typed, and does not hang.
func TestLatch_JoinRefusedByTheServerEndsAwaitWithTheError(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	p := zktest.UniquePath(t)
	readOnly := []zk.ACL{{Perms: zk.PermRead, Scheme: "world", ID: "anyone"}}
	_, err := c.Create(testContext(t), p, nil, framework.Persistent, framework.WithParents(), framework.WithACL(readOnly))
	require.NoError(t, err)
	l := startLatch(t, c, p)
	_, err = l.Await(testContext(t))
	require.ErrorIs(t, err, zk.ErrNoAuth)
	assert.Equal(t, leader.Closed, l.State())
	require.NoError(t, l.Close(testContext(t)))
}

// A term lost to a suspension leaves its node to be deleted once the
// connection is back; a Close right after the loss returns only once that
// delete is acknowledged too.
func TestLatch_CloseAfterALossReturnsOnceTheLostNodeIsDeleted(t *testing.T) {
	servers := zktest.Servers(t)
	observer := connect(t, servers)
	for i := range 5 {
		proxy := zktest.NewProxy(t, servers)
		c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
		p := zktest.UniquePath(t)
		l := startLatch(t, c, p)
		lead := await(t, l, 10*time.Second, "the latch")
		proxy.Cut()
		waitClosed(t, lead.Lost(), 10*time.Second, "the term")
		require.NoError(t, l.Close(testContext(t)))
		assert.Empty(t, children(t, observer, p), "round %d: the lost term's node is gone when Close returns", i)
	}
}
