package framework_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// ZooKeeper 3.6 to 3.8 keep one watch mode per path and connection
// (ZOOKEEPER-4466): a persistent and a recursive Watch of one path on one
// client would replace each other there. These tests check that each
// hears what the server would send it alone.

// watchBoth sets a Watch of path in each mode, first's first.
func watchBoth(t *testing.T, c *framework.Client, path string, first framework.WatchMode) (persistent, recursive *framework.Watch) {
	t.Helper()
	ctx := testContext(t)
	modes := []framework.WatchMode{framework.WatchPersistent, framework.WatchRecursive}
	if first == framework.WatchRecursive {
		modes[0], modes[1] = modes[1], modes[0]
	}
	for _, mode := range modes {
		w, err := c.Watch(ctx, path, mode)
		require.NoError(t, err)
		t.Cleanup(func() { _ = w.Close(ctx) })
		if mode == framework.WatchPersistent {
			persistent = w
		} else {
			recursive = w
		}
	}
	return persistent, recursive
}

// bothHear changes path's node and nodes below it, and checks that each
// Watch hears its events of them, and nothing else, in the server's
// order. The node at path exists.
func bothHear(t *testing.T, c *framework.Client, path string, persistent, recursive *framework.Watch) {
	t.Helper()
	ctx := testContext(t)
	_, err := c.Create(ctx, path+"/a", nil, framework.Persistent)
	require.NoError(t, err)
	_, err = c.Create(ctx, path+"/a/b", nil, framework.Persistent)
	require.NoError(t, err)
	_, err = c.Set(ctx, path, []byte("x"), -1)
	require.NoError(t, err)
	seq, err := c.Create(ctx, path+"/e-", nil, framework.EphemeralSequential)
	require.NoError(t, err)
	require.NoError(t, c.Delete(ctx, path+"/a/b", -1))
	require.NoError(t, c.Delete(ctx, path+"/a", -1))
	_, err = c.Set(ctx, path, []byte("y"), -1) // the last: nothing more comes before it
	require.NoError(t, err)

	children := framework.WatchEvent{Type: framework.NodeChildrenChanged, Path: path}
	changed := framework.WatchEvent{Type: framework.NodeDataChanged, Path: path}
	for _, ev := range []framework.WatchEvent{children, changed, children, children, changed} {
		hears(t, persistent, ev)
	}
	for _, ev := range []framework.WatchEvent{
		{Type: framework.NodeCreated, Path: path + "/a"},
		{Type: framework.NodeCreated, Path: path + "/a/b"},
		changed,
		{Type: framework.NodeCreated, Path: seq},
		{Type: framework.NodeDeleted, Path: path + "/a/b"},
		{Type: framework.NodeDeleted, Path: path + "/a"},
		changed,
	} {
		hears(t, recursive, ev)
	}
}

var bothOrders = map[string]framework.WatchMode{
	"persistent first": framework.WatchPersistent,
	"recursive first":  framework.WatchRecursive,
}

func TestWatch_APersistentAndARecursiveWatchOfOnePathBothHearInEitherOrder(t *testing.T) {
	for name, first := range bothOrders {
		t.Run(name, func(t *testing.T) {
			proxy := zktest.NewProxy(t, zktest.Servers(t))
			c := connect(t, proxy.Addr())
			path := zktest.UniquePath(t)
			require.NoError(t, c.EnsurePath(testContext(t), path))
			persistent, recursive := watchBoth(t, c, path, first)
			bothHear(t, c, path, persistent, recursive)
			if first == framework.WatchRecursive {
				assert.Equal(t, int64(1), proxy.Requests(zktest.OpAddWatch),
					"the persistent watch is served from the recursive one, without a request")
			}
		})
	}
}

// When the recursive Watch of a path that a persistent one shares closes,
// the persistent one hears every change of its children, before, during
// and after the client sets its own mode on the server again.
func TestWatch_ClosingTheRecursiveWatchOfAPathLeavesItsPersistentWatchHearingEveryChild(t *testing.T) {
	servers := zktest.Servers(t)
	c := connect(t, servers)
	other := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	persistent, recursive := watchBoth(t, c, path, framework.WatchPersistent)
	require.NoError(t, recursive.Close(ctx))
	// Another client makes children until the client has set the
	// persistent mode again, and a few more: the switch falls among them.
	created := 0
	for after := 0; after < 5 && created < 5000; created++ {
		_, err := other.Create(ctx, path+"/c-", nil, framework.PersistentSequential)
		require.NoError(t, err)
		if framework.WatchesSettled(c, path) {
			after++
		}
	}
	require.True(t, framework.WatchesSettled(c, path), "the recursive watch's linger did not end")
	_, err := c.Set(ctx, path, []byte("x"), -1)
	require.NoError(t, err)
	for range created {
		hears(t, persistent, framework.WatchEvent{Type: framework.NodeChildrenChanged, Path: path})
	}
	hears(t, persistent, framework.WatchEvent{Type: framework.NodeDataChanged, Path: path})
}

// When the persistent Watch of a path that a recursive one shares closes,
// the recursive one hears on, and nothing is sent to the server for it.
func TestWatch_ClosingThePersistentWatchOfAPathLeavesItsRecursiveWatchHearing(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	persistent, recursive := watchBoth(t, c, path, framework.WatchRecursive)
	require.NoError(t, persistent.Close(ctx))
	require.Eventually(t, func() bool { return framework.WatchesSettled(c, path) }, 10*time.Second, time.Millisecond,
		"the persistent watch's linger did not end")
	_, err := c.Create(ctx, path+"/a", nil, framework.Persistent)
	require.NoError(t, err)
	_, err = c.Create(ctx, path+"/a/b", nil, framework.Persistent)
	require.NoError(t, err)
	hears(t, recursive, framework.WatchEvent{Type: framework.NodeCreated, Path: path + "/a"})
	hears(t, recursive, framework.WatchEvent{Type: framework.NodeCreated, Path: path + "/a/b"})
	assert.Equal(t, int64(1), proxy.Requests(zktest.OpAddWatch))
	assert.Zero(t, proxy.Requests(zktest.OpRemoveWatches))
}

// A reconnect sets both again, the recursive mode alone on the server.
func TestWatch_APathsPersistentAndRecursiveWatchesBothHearAfterAReconnect(t *testing.T) {
	for name, first := range bothOrders {
		t.Run(name, func(t *testing.T) {
			proxy := zktest.NewProxy(t, zktest.Servers(t))
			c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
			states := recordStates(c)
			path := zktest.UniquePath(t)
			require.NoError(t, c.EnsurePath(testContext(t), path))
			persistent, recursive := watchBoth(t, c, path, first)
			proxy.Cut()
			require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
			require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)
			assert.Equal(t, framework.WatchResumed, nextWatchEvent(t, persistent).Type)
			assert.Equal(t, framework.WatchResumed, nextWatchEvent(t, recursive).Type)
			bothHear(t, c, path, persistent, recursive)
		})
	}
}

// A Watch of a path set on a new connection before the restore of the
// path's Watch of the other mode is written: the restore leaves the
// recursive mode on the server, and both hear.
func TestWatch_AWatchSetBeforeTheRestoreOfTheOtherModeOfItsPathLeavesBothHearing(t *testing.T) {
	for name, first := range bothOrders {
		t.Run(name, func(t *testing.T) {
			proxy := zktest.NewProxy(t, zktest.Servers(t))
			c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
			states := recordStates(c)
			ctx := testContext(t)
			path := zktest.UniquePath(t)
			require.NoError(t, c.EnsurePath(ctx, path))
			old, err := c.Watch(ctx, path, first)
			require.NoError(t, err)
			defer old.Close(ctx)
			release := framework.HoldRestores(c)
			proxy.Cut()
			require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
			require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)
			second := framework.WatchRecursive
			if first == framework.WatchRecursive {
				second = framework.WatchPersistent
			}
			w, err := c.Watch(ctx, path, second)
			require.NoError(t, err)
			defer w.Close(ctx)
			release()
			assert.Equal(t, framework.WatchResumed, nextWatchEvent(t, old).Type)
			persistent, recursive := old, w
			if first == framework.WatchRecursive {
				persistent, recursive = w, old
			}
			bothHear(t, c, path, persistent, recursive)
		})
	}
}

// In a new session, both are set again and both hear.
func TestWatch_APathsPersistentAndRecursiveWatchesBothHearAfterAnExpiry(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	const timeout = 2 * time.Second
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(timeout))
	states := recordStates(c)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(testContext(t), path))
	persistent, recursive := watchBoth(t, c, path, framework.WatchRecursive)
	proxy.Pause()
	for s := states.next(t, 10*time.Second); s.State != framework.Lost; s = states.next(t, 10*time.Second) {
	}
	time.Sleep(timeout) // the server expires it too
	proxy.Resume()
	assert.Equal(t, framework.WatchSessionChanged, nextWatchEvent(t, persistent).Type)
	assert.Equal(t, framework.WatchSessionChanged, nextWatchEvent(t, recursive).Type)
	bothHear(t, c, path, persistent, recursive)
}
