package discovery_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
	"github.com/zkrecipes/zkrecipes/recipes/discovery"
)

// BenchmarkRegistry_Warm reads a registry of 1,000 instances across 50
// services: through a cache of the base path (multi-reads), and node by
// node (a listing per service, a read per instance), as a reader without
// multi-reads does.
func BenchmarkRegistry_Warm(b *testing.B) {
	c := zktest.Connect(b, zktest.Servers(b))
	ctx := zktest.Context(b)
	base := zktest.UniquePath(b)
	codec, err := discovery.NewCodec[map[string]any]()
	require.NoError(b, err)
	require.NoError(b, c.EnsurePath(ctx, base))
	for s := range 50 {
		name := fmt.Sprintf("svc%02d", s)
		ops := []framework.Op{framework.CreateOp(base+"/"+name, nil, framework.Persistent)}
		for i := range 20 {
			inst := discovery.Instance[map[string]any]{Name: name, ID: fmt.Sprintf("i%02d", i), Address: "10.0.0.1", Payload: map[string]any{"zone": "a"}}
			data, err := codec.Marshal(&inst)
			require.NoError(b, err)
			ops = append(ops, framework.CreateOp(base+"/"+name+"/"+inst.ID, data, framework.Persistent))
		}
		_, err := c.Multi(ctx, ops...)
		require.NoError(b, err)
	}
	b.Run("cache", func(b *testing.B) {
		for range b.N {
			cc, err := cache.New(c, base, cache.WithMaxDepth(2))
			require.NoError(b, err)
			require.NoError(b, cc.Start(context.Background()))
			require.NoError(b, cc.AwaitInitialized(ctx))
			require.Equal(b, 1+50+1000, cc.Len())
			require.NoError(b, cc.Close(ctx))
		}
	})
	b.Run("node-by-node", func(b *testing.B) {
		for range b.N {
			n := 0
			names, _, err := c.Children(ctx, base)
			require.NoError(b, err)
			for _, name := range names {
				ids, _, err := c.Children(ctx, base+"/"+name)
				require.NoError(b, err)
				for _, id := range ids {
					_, _, err := c.Get(ctx, base+"/"+name+"/"+id)
					require.NoError(b, err)
					n++
				}
			}
			require.Equal(b, 1000, n)
		}
	})
	b.Run("node-by-node-pipelined", func(b *testing.B) { // reads in flight together, as Curator's async reads
		for range b.N {
			names, _, err := c.Children(ctx, base)
			require.NoError(b, err)
			var wg sync.WaitGroup
			var n atomic.Int64
			for _, name := range names {
				wg.Go(func() {
					ids, _, err := c.Children(ctx, base+"/"+name)
					if err != nil {
						return
					}
					for _, id := range ids {
						wg.Go(func() {
							if _, _, err := c.Get(ctx, base+"/"+name+"/"+id); err == nil {
								n.Add(1)
							}
						})
					}
				})
			}
			wg.Wait()
			require.Equal(b, int64(1000), n.Load())
		}
	})
}
