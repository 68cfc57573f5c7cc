package framework_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// A conditional transaction whose answer is lost is not reported failed
// after it ran: its retry's check would fail on the version its own run
// made (issue 20, item 3).
func TestMulti_LostAnswerOfAConditionalTransactionIsNeverAConflict(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	p, err := c.Create(ctx, zktest.UniquePath(t), []byte("v0"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)

	proxy.DropNextReply(zktest.OpMulti)
	_, err = c.Multi(ctx, framework.CheckOp(p, 0), framework.SetOp(p, []byte("v1"), 0))
	require.Equal(t, 1, proxy.DroppedReplies())
	if err != nil {
		require.ErrorIs(t, err, framework.ErrOutcomeUnknown)
		assert.NotErrorIs(t, err, zk.ErrBadVersion)
	}
	data, stat, err := c.Get(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, "v1", string(data))
	assert.Equal(t, int32(1), stat.Version, "applied once")
}

// A transaction of a sequential create and an unconditional set, whose
// answer is lost, never runs twice.
func TestMulti_LostAnswerNeverRunsATransactionTwice(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, dir))

	proxy.DropNextReply(zktest.OpMulti)
	_, err := c.Multi(ctx, framework.CreateOp(dir+"/n-", nil, framework.PersistentSequential), framework.SetOp(dir, []byte("x"), -1))
	require.Equal(t, 1, proxy.DroppedReplies())
	if err != nil {
		require.ErrorIs(t, err, framework.ErrOutcomeUnknown)
	}
	_, stat, err := c.Get(ctx, dir)
	require.NoError(t, err)
	assert.Equal(t, int32(1), stat.Version, "the set ran once")
	assert.Len(t, zktest.Children(t, c, dir), 1, "the create ran once")
}

// A transaction holding a protected create proves what happened to it
// after a lost answer: the node found by its id says it ran, and the
// client returns its results instead of running it again.
func TestMulti_LostAnswerOfAProtectedTransactionIsFoundByItsID(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, dir))
	id := zkpath.NewProtectionID()
	lease := zkpath.Join(dir, zkpath.ProtectedName(id, "lease-"))

	proxy.DropNextReply(zktest.OpMulti)
	results, err := c.Multi(ctx, framework.CreateOp(lease, nil, framework.EphemeralSequential), framework.SetOp(dir, nil, -1))
	require.Equal(t, 1, proxy.DroppedReplies())
	require.NoError(t, err)
	children := zktest.Children(t, c, dir)
	require.Len(t, children, 1)
	assert.Equal(t, zkpath.Join(dir, children[0]), results[0].Path)
	_, stat, err := c.Get(ctx, dir)
	require.NoError(t, err)
	assert.Equal(t, int32(1), stat.Version, "the set ran once")
}

// A versioned delete whose answer is lost is not reported as a missing
// node: the retry meets the absence its own run made.
func TestDelete_LostAnswerOfAVersionedDeleteIsNeverNoNode(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	p, err := c.Create(ctx, zktest.UniquePath(t), nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)

	proxy.DropNextReply(zktest.OpDelete)
	err = c.Delete(ctx, p, 0)
	require.Equal(t, 1, proxy.DroppedReplies())
	if err != nil {
		require.ErrorIs(t, err, framework.ErrOutcomeUnknown)
		assert.NotErrorIs(t, err, zk.ErrNoNode)
	}
	ok, _, err := c.Exists(ctx, p)
	require.NoError(t, err)
	assert.False(t, ok)
}

// A conditional set whose ctx ends while its answer is on its way is of
// unknown outcome, and says why.
func TestSet_EndedWhileItsAnswerIsOnItsWayIsOfUnknownOutcome(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	p, err := c.Create(ctx, zktest.UniquePath(t), nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)

	proxy.HoldRepliesFrom(zktest.OpSetData)
	setCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := c.Set(setCtx, p, []byte("x"), 0); done <- err }()
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpSetData) == 1 }, 10*time.Second, 5*time.Millisecond)
	cancel()
	err = <-done
	proxy.ReleaseReplies()
	require.ErrorIs(t, err, framework.ErrOutcomeUnknown)
	require.ErrorIs(t, err, context.Canceled)
}

// A transaction of protected creates abandoned while its answer is on its
// way leaves none of its nodes once it has run.
func TestMulti_AbandonedProtectedTransactionLeavesNothing(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	observer := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, dir))
	lease := zkpath.Join(dir, zkpath.ProtectedName(zkpath.NewProtectionID(), "lease-"))

	proxy.HoldRepliesFrom(zktest.OpMulti)
	multiCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := c.Multi(multiCtx, framework.CreateOp(lease, nil, framework.EphemeralSequential))
		done <- err
	}()
	require.Eventually(t, func() bool { return len(zktest.Children(t, observer, dir)) == 1 }, 10*time.Second, 5*time.Millisecond)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	proxy.ReleaseReplies()
	require.Eventually(t, func() bool { return len(zktest.Children(t, observer, dir)) == 0 }, 10*time.Second, 10*time.Millisecond)
}
