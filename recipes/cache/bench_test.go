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
func makeWideTree(b *testing.B, c *framework.Client, root string, parents, perParent int) {
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

// BenchmarkCache_HeapPerNode reports the heap a cached node costs beyond
// its 100-byte value (its path's bytes included, whose mean length it
// reports too), and how long a load takes.
func BenchmarkCache_HeapPerNode(b *testing.B) {
	for _, size := range []struct{ parents, perParent int }{{100, 100}, {100, 1000}} {
		nodes := size.parents * (size.perParent + 1)
		b.Run(strconv.Itoa(nodes), func(b *testing.B) {
			c := connect(b, zktest.Servers(b))
			root := zktest.UniquePath(b)
			makeWideTree(b, c, root, size.parents, size.perParent)
			b.ResetTimer()
			var perNode, pathLen float64
			for range b.N {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				cc, err := cache.New(c, root)
				require.NoError(b, err)
				require.NoError(b, cc.Start(context.Background()))
				require.NoError(b, cc.AwaitInitialized(context.Background()))
				runtime.GC()
				runtime.ReadMemStats(&after)
				perNode = float64(after.HeapAlloc-before.HeapAlloc) / float64(cc.Len())
				pathLen = 0
				for _, e := range cc.Entries() {
					pathLen += float64(len(e.Path))
				}
				pathLen /= float64(cc.Len())
				require.NoError(b, cc.Close(context.Background()))
			}
			b.ReportMetric(perNode, "heapB/node")
			b.ReportMetric(perNode-100, "overheadB/node") // the path's bytes included
			b.ReportMetric(pathLen, "pathB/node")
		})
	}
}
