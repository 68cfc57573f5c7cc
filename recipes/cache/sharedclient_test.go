package cache_test

import (
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/node"
)

// A node.Node that keeps a directory watches it with ExistsW; a cache of
// that directory on the same client watches it recursively. ZooKeeper 3.6
// to 3.8 keep one watch mode per path and connection (ZOOKEEPER-4466):
// the one-shot watch must not silence the cache.
func TestCache_FollowsADirectoryThatANodeOfTheSameClientKeeps(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	n, err := node.New(c, dir, framework.Persistent, []byte("workers"))
	require.NoError(t, err)
	require.NoError(t, n.Start(ctx))
	require.NoError(t, n.AwaitCreated(ctx))
	defer func() { // the workers first: the node deletes its own alone
		for _, w := range zktest.Children(t, c, dir) {
			assert.NoError(t, c.Delete(ctx, dir+"/"+w, -1))
		}
		assert.NoError(t, n.Close(ctx))
	}()
	cc, _ := started(t, c, dir)

	_, err = c.Create(ctx, dir+"/w1", nil, framework.Persistent)
	require.NoError(t, err)
	require.Eventually(t, func() bool { names, _ := cc.Children(dir); return len(names) == 1 }, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, n.SetData(ctx, []byte("workers, again"))) // the node reads its node again, with ExistsW
	require.Eventually(t, func() bool { e, _ := cc.Get(dir); return string(e.Data) == "workers, again" }, 10*time.Second, 10*time.Millisecond)
	for _, w := range []string{"w2", "w3"} {
		_, err = c.Create(ctx, dir+"/"+w, nil, framework.Persistent)
		require.NoError(t, err)
	}
	want := []string{"w1", "w2", "w3"}
	assert.Equal(t, want, zktest.Children(t, c, dir), "the server")
	ok := assert.Eventually(t, func() bool {
		names, _ := cc.Children(dir)
		sort.Strings(names)
		return assert.ObjectsAreEqual(want, names)
	}, 10*time.Second, 10*time.Millisecond)
	if !ok {
		names, _ := cc.Children(dir)
		t.Errorf("the cache: %v", names)
	}
}

// A cache watches its root recursively; a Watch of the same client that
// watches the root persistently beside it must silence neither (one mode
// per path and connection on ZooKeeper 3.6 to 3.8, ZOOKEEPER-4466).
func TestCache_FollowsADirectoryThatTheSameClientAlsoWatchesPersistently(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, dir))
	cc, seq := started(t, c, dir)
	w, err := c.Watch(ctx, dir, framework.WatchPersistent)
	require.NoError(t, err)
	defer w.Close(ctx)

	for _, p := range []string{"/a", "/a/b", "/c"} {
		_, err = c.Create(ctx, dir+p, []byte(p), framework.Persistent)
		require.NoError(t, err)
	}
	_, err = c.Set(ctx, dir+"/a/b", []byte("again"), -1)
	require.NoError(t, err)
	require.NoError(t, c.Delete(ctx, dir+"/c", -1))
	converges(t, c, cc, seq, -1)
	for range 3 { // /a and /c created, /c deleted
		select {
		case ev := <-w.Events():
			assert.Equal(t, framework.WatchEvent{Type: framework.NodeChildrenChanged, Path: dir}, ev)
		case <-time.After(10 * time.Second):
			t.Fatal("the persistent watch did not hear its children change")
		}
	}
}

// A cache of a lock's directory alone (WithMaxDepth(0)) watches it
// persistently; the mutex's waiters of the same client follow the queue
// through the directory's recursive watch. Neither may silence the other.
func TestCache_OfALockDirectoryAloneLeavesTheMutexOfTheSameClientHandingOver(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	// Persistent, not the mutex's container: the server reaps an empty
	// container within a second, before the test writes to it.
	_, err := c.Create(ctx, dir, nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	m, err := mutex.New(c, dir)
	require.NoError(t, err)
	first, err := m.Acquire(ctx)
	require.NoError(t, err)
	taken := make(chan error, 1)
	go func() { // ends when the second acquire returns, with ctx at the latest
		h, err := m.Acquire(ctx)
		if err == nil {
			err = h.Release(ctx)
		}
		taken <- err
	}()
	require.Eventually(t, func() bool { return c.Watching(dir, framework.WatchRecursive) }, 10*time.Second, time.Millisecond,
		"the waiter follows the queue through the directory's watch")
	cc, seq := started(t, c, dir, cache.WithMaxDepth(0))

	require.NoError(t, first.Release(ctx))
	select {
	case err := <-taken:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not take the lock released: the directory's watch was silenced")
	}
	_, err = c.Set(ctx, dir, []byte("x"), -1)
	require.NoError(t, err)
	converges(t, c, cc, seq, 0)
}
