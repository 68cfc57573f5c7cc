package cache_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
	"github.com/zkrecipes/zkrecipes/recipes/cache/cachetest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

var (
	connect     = zktest.Connect
	testContext = zktest.Context
)

// makeTree creates root with width children, each with width children,
// every node's data its own path.
func makeTree(t testing.TB, c *framework.Client, root string, width int) int {
	t.Helper()
	ctx := testContext(t)
	require.NoError(t, c.EnsurePath(ctx, root))
	n := 1
	for i := range width {
		p := fmt.Sprintf("%s/n%02d", root, i)
		_, err := c.Create(ctx, p, []byte(p), framework.Persistent)
		require.NoError(t, err)
		n++
		for j := range width {
			q := fmt.Sprintf("%s/m%02d", p, j)
			_, err := c.Create(ctx, q, []byte(q), framework.Persistent)
			require.NoError(t, err)
			n++
		}
	}
	return n
}

// started makes and starts a cache with a Sequence checking its events.
func started(t testing.TB, c *framework.Client, root string, opts ...cache.Option) (*cache.Cache, *cachetest.Sequence) {
	t.Helper()
	cc, err := cache.New(c, root, opts...)
	require.NoError(t, err)
	seq := cachetest.NewSequence(root)
	cc.AddListener(seq.Listener())
	require.NoError(t, cc.Start(testContext(t)))
	require.NoError(t, cc.AwaitInitialized(testContext(t)))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = cc.Close(ctx)
	})
	return cc, seq
}

// converges waits until the cache agrees with the server node by node,
// and its events with the cache.
func converges(t testing.TB, reader *framework.Client, cc *cache.Cache, seq *cachetest.Sequence, maxDepth int) {
	t.Helper()
	var last []cachetest.Divergence
	ok := assert.Eventually(t, func() bool {
		var err error
		last, err = cachetest.Compare(testContext(t), reader, cc.Path(), maxDepth, true, cc.Entries())
		return err == nil && len(last) == 0
	}, 20*time.Second, 50*time.Millisecond)
	if !ok {
		t.Errorf("the cache did not converge: %v", last)
	}
	assert.Empty(t, seq.Violations())
	held := seq.Held()
	assert.Len(t, held, cc.Len(), "the events describe the cached tree")
	for _, e := range cc.Entries() { // a Stat may move without an event: children of a node changed
		h := held[e.Path]
		assert.Equal(t, [3]any{e.Stat.Czxid, e.Stat.Mzxid, string(e.Data)}, [3]any{h.Stat.Czxid, h.Stat.Mzxid, string(h.Data)},
			"the events describe %s as cached", e.Path)
	}
}

// requests sums the reads and watch requests clients sent through proxy.
func requests(proxy *zktest.Proxy) int64 {
	var n int64
	for _, op := range []int32{zktest.OpGetData, zktest.OpGetChildren2, opGetChildren, opExists, zktest.OpMultiRead, zktest.OpSetWatches, zktest.OpSetWatches2, zktest.OpAddWatch, zktest.OpRemoveWatches} {
		n += proxy.Requests(op)
	}
	return n
}

const (
	opExists      int32 = 3
	opGetChildren int32 = 8
)
