package framework_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// A watch closed with Hooks.CloseWatchAtOnce does not linger: its removal
// is under way when the call returns, so that the client does not go on
// hearing every change of the path for a second, and once the removal is
// answered the server tells the client nothing more.
func TestHooks_CloseWatchAtOnceRemovesTheServersWatchWithoutALinger(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	w, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	require.NoError(t, c.Hooks().CloseWatchAtOnce(ctx, w))
	require.NoError(t, c.Hooks().CloseWatchAtOnce(ctx, w), "a second close is a no-op")
	_, open := <-w.Events()
	assert.False(t, open)
	assert.NoError(t, w.Err())
	assert.False(t, c.Watching(path, framework.WatchRecursive), "the server's watch lingers")
	require.Eventually(t, func() bool { return proxy.Answered(zktest.OpRemoveWatches) > 0 }, 10*time.Second, 5*time.Millisecond,
		"the server's watch is removed")

	notified := framework.CountNotifications(c, path)
	require.NoError(t, c.EnsurePath(ctx, path))
	_, _, err = c.Get(ctx, path) // a notification of the create would come before its answer
	require.NoError(t, err)
	assert.Zero(t, notified(), "a notification for the removed watch")
}

// A Watch of the path set while the removal of one closed at once is
// unanswered waits for it and sets its own: the removal does not take the
// new watch with it, and the new one is not the old one taken over.
func TestHooks_AWatchSetWhileCloseWatchAtOnceRemovesWaitsAndSetsItsOwn(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	w, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	proxy.HoldRepliesFrom(zktest.OpRemoveWatches)
	require.NoError(t, c.Hooks().CloseWatchAtOnce(ctx, w))
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpRemoveWatches) > 0 }, 10*time.Second, 5*time.Millisecond)

	type result struct {
		w   *framework.Watch
		err error
	}
	set := make(chan result, 1)
	go func() { // ends when Watch returns: after the removal's answer
		w, err := c.Watch(ctx, path, framework.WatchRecursive)
		set <- result{w, err}
	}()
	proxy.ReleaseReplies()
	again := <-set
	require.NoError(t, again.err)
	defer again.w.Close(ctx)
	assert.Equal(t, int64(2), proxy.Requests(zktest.OpAddWatch), "the new Watch sets its own")
	require.NoError(t, c.EnsurePath(ctx, path))
	assert.Equal(t, framework.WatchEvent{Type: framework.NodeCreated, Path: path}, nextWatchEvent(t, again.w))
}

// A connection lost while a watch closed at once is being removed ends
// nothing but that removal: the watch is not set again on the new
// connection, and a Watch of the path then sets its own and hears what
// changes.
func TestHooks_CloseWatchAtOnceThroughAConnectionLoss(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	w, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	proxy.HoldRepliesFrom(zktest.OpRemoveWatches)
	require.NoError(t, c.Hooks().CloseWatchAtOnce(ctx, w))
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpRemoveWatches) > 0 }, 10*time.Second, 5*time.Millisecond)
	proxy.Cut()
	proxy.ReleaseReplies()
	require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
	require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)

	again, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	defer again.Close(ctx)
	assert.Equal(t, int64(2), proxy.Requests(zktest.OpAddWatch), "the new Watch sets its own")
	require.NoError(t, c.EnsurePath(ctx, path))
	assert.Equal(t, framework.WatchEvent{Type: framework.NodeCreated, Path: path}, nextWatchEvent(t, again))
}

// A client closed while a watch closed at once is being removed ends the
// removal with it (its wait for the calls under way bounds it), and a
// watch closed at once after the client sends nothing.
func TestHooks_ARemovalUnderWayEndsWithTheClient(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	w, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	other, err := c.Watch(ctx, path+"/other", framework.WatchRecursive)
	require.NoError(t, err)
	proxy.HoldRepliesFrom(zktest.OpRemoveWatches)
	defer proxy.ReleaseReplies()
	require.NoError(t, c.Hooks().CloseWatchAtOnce(ctx, w))
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpRemoveWatches) > 0 }, 10*time.Second, 5*time.Millisecond)

	require.NoError(t, c.Close())
	assert.NoError(t, c.Hooks().CloseWatchAtOnce(ctx, other))
	assert.Equal(t, int64(1), proxy.Requests(zktest.OpRemoveWatches), "a removal after the client's close")
}

// A watch closed at once while another Watch of its path and mode is open
// leaves the server's watch to that one; a watch of another client is
// refused.
func TestHooks_CloseWatchAtOnceLeavesAnotherWatchOfThePath(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	first, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	second, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	defer second.Close(ctx)
	require.ErrorIs(t, connect(t, proxy.Addr()).Hooks().CloseWatchAtOnce(ctx, first), framework.ErrInvalidArgument)

	require.NoError(t, c.Hooks().CloseWatchAtOnce(ctx, first))
	assert.True(t, c.Watching(path, framework.WatchRecursive))
	require.NoError(t, c.EnsurePath(ctx, path))
	assert.Equal(t, framework.WatchEvent{Type: framework.NodeCreated, Path: path}, nextWatchEvent(t, second))
	assert.Zero(t, proxy.Requests(zktest.OpRemoveWatches))
}
