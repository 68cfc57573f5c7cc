package framework_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// A second Watch of a path and mode the server has for the client costs
// no request, and each gets every event; closing one leaves the other's.
func TestWatch_ASecondWatchOfAPathCostsNoRequest(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	first, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	second, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	defer second.Close(ctx)
	assert.Equal(t, int64(1), proxy.Requests(zktest.OpAddWatch))

	require.NoError(t, c.EnsurePath(ctx, path))
	want := framework.WatchEvent{Type: framework.NodeCreated, Path: path}
	assert.Equal(t, want, nextWatchEvent(t, first))
	assert.Equal(t, want, nextWatchEvent(t, second))
	require.NoError(t, first.Close(ctx))
	require.NoError(t, c.Delete(ctx, path, -1))
	assert.Equal(t, framework.WatchEvent{Type: framework.NodeDeleted, Path: path}, nextWatchEvent(t, second))
	assert.Zero(t, proxy.Requests(zktest.OpRemoveWatches))
}

// A path watched again within the linger of its closed watch costs no
// request either way: neither the removal nor the new addWatch.
func TestWatch_WatchedAgainWithinTheLingerCostsNoRequest(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	for range 3 {
		w, err := c.Watch(ctx, path, framework.WatchPersistent)
		require.NoError(t, err)
		require.NoError(t, w.Close(ctx))
	}
	w, err := c.Watch(ctx, path, framework.WatchPersistent)
	require.NoError(t, err)
	defer w.Close(ctx)
	require.NoError(t, c.EnsurePath(ctx, path))
	assert.Equal(t, framework.WatchEvent{Type: framework.NodeCreated, Path: path}, nextWatchEvent(t, w))
	assert.Equal(t, int64(1), proxy.Requests(zktest.OpAddWatch))
	assert.Zero(t, proxy.Requests(zktest.OpRemoveWatches))
}

// A lingering watch does not outlive its connection: a path watched
// again after a reconnect is set again on the new one.
func TestWatch_ALingeringWatchIsNotTakenOverOnANewConnection(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	w, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	require.NoError(t, w.Close(ctx))
	proxy.Cut()
	require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
	require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)

	w, err = c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	defer w.Close(ctx)
	assert.Equal(t, int64(2), proxy.Requests(zktest.OpAddWatch))
	require.NoError(t, c.EnsurePath(ctx, path))
	assert.Equal(t, framework.WatchEvent{Type: framework.NodeCreated, Path: path}, nextWatchEvent(t, w))
}

// While a reconnect's restore is not answered, the server has not the
// client's watches back: a new Watch of a watched path sets its own, and
// hears what changes before the restore comes.
func TestWatch_ANewWatchDuringARestoreIsSetOfItsOwn(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	old, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	defer old.Close(ctx)
	release := framework.HoldRestores(c)
	defer release()
	proxy.Cut()
	require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
	require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)

	w, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	defer w.Close(ctx)
	require.NoError(t, c.EnsurePath(ctx, path))
	assert.Equal(t, framework.WatchEvent{Type: framework.NodeCreated, Path: path}, nextWatchEvent(t, w),
		"the new watch hears the create before the restore")
}
