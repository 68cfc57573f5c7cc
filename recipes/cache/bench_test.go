package cache_test

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
)

// makeWideTree creates root with n children of 100-byte values, in
// transactions of 1,000 creates, in parallel.
func makeWideTree(b testing.TB, c *framework.Client, root string, parents, perParent int) {
	ctx := testContext(b)
	require.NoError(b, c.EnsurePath(ctx, root))
	value := make([]byte, 100)
	errs := make(chan error, parents)
	for i := range parents {
		go func() {
			parent := fmt.Sprintf("%s/p%03d", root, i)
			ops := []framework.Op{framework.CreateOp(parent, value, framework.Persistent)}
			for j := range perParent {
				ops = append(ops, framework.CreateOp(parent+"/n"+strconv.Itoa(j), value, framework.Persistent))
				if len(ops) == 1000 {
					if _, err := c.Multi(ctx, ops...); err != nil {
						errs <- err
						return
					}
					ops = ops[:0]
				}
			}
			if len(ops) > 0 {
				_, err := c.Multi(ctx, ops...)
				errs <- err
				return
			}
			errs <- nil
		}()
	}
	for range parents {
		require.NoError(b, <-errs)
	}
}

// BenchmarkCache_HeapPerNode reports the live heap a loaded cache adds
// per node, and that beyond the node's value (loadHeap), on wide trees of
// 100-byte values: 100 parents of 100 and of 1,000 children. The root's
// path is long (the test's name); a node's is 10 bytes below it. ns/op
// and allocs/op are of a whole load and its measure.
func BenchmarkCache_HeapPerNode(b *testing.B) {
	for _, size := range []struct{ parents, perParent int }{{100, 100}, {100, 1000}} {
		nodes := size.parents*(size.perParent+1) + 1
		b.Run(strconv.Itoa(nodes), func(b *testing.B) {
			c := connect(b, zktest.Servers(b))
			root := zktest.UniquePath(b)
			makeWideTree(b, c, root, size.parents, size.perParent)
			b.ReportAllocs()
			b.ResetTimer()
			var perNode, overValue float64
			for range b.N {
				perNode, overValue = loadHeap(b, c, root, nodes)
			}
			b.ReportMetric(perNode, "heapB/node")
			b.ReportMetric(overValue, "B/node-over-value")
		})
	}
}

// loadHeap loads a cache of root, of nodes nodes, and returns the live
// heap it added per node (HeapAlloc after runtime.GC, loaded minus before
// Start), and that less the values' bytes.
func loadHeap(t testing.TB, c *framework.Client, root string, nodes int) (perNode, overValue float64) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cc, err := cache.New(c, root)
	require.NoError(t, err)
	require.NoError(t, cc.Start(context.Background()))
	require.NoError(t, cc.AwaitInitialized(context.Background()))
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	values := 0
	for _, e := range cc.Entries() {
		values += len(e.Data)
	}
	require.Equal(t, nodes, cc.Len())
	require.NoError(t, cc.Close(context.Background()))
	return heap / float64(nodes), (heap - float64(values)) / float64(nodes)
}
