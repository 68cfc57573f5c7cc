package cache_test

import (
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
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
