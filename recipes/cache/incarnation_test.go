package cache_test

import (
	"fmt"
	"path"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
)

// A parent and its child deleted, then created again in one multi, seen
// 20 ms away from the server: the cache reads the child's new incarnation
// while it still holds the parent's old one. It tells the server's
// history, the child's old incarnation and the parent's deleted, then
// the new ones created, and never a Deleted of the child's new
// incarnation (which it used to tell, and create again, in every round).
func TestCache_AParentAndChildCreatedAgainAreToldInTheServersOrder(t *testing.T) {
	zktest.ServerKinds(t, func(t *testing.T, proxy *zktest.Proxy) {
		c := connect(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
		other := connect(t, zktest.Servers(t))
		ctx := testContext(t)
		root := zktest.UniquePath(t)
		parent, child := root+"/a", root+"/a/x"
		require.NoError(t, other.EnsurePath(ctx, path.Dir(root)))
		for _, p := range []string{root, parent, child} {
			_, err := other.Create(ctx, p, nil, framework.Persistent)
			require.NoError(t, err)
		}
		cc, seq := started(t, c, root)
		proxy.SetDelay(20 * time.Millisecond)
		const rounds = 10
		for i := range rounds {
			require.NoError(t, other.Delete(ctx, child, -1))
			require.NoError(t, other.Delete(ctx, parent, -1))
			_, err := other.Multi(ctx,
				framework.CreateOp(parent, nil, framework.Persistent),
				framework.CreateOp(child, []byte(fmt.Sprint(i)), framework.Persistent))
			require.NoError(t, err)
			_, stat, err := other.Exists(ctx, child)
			require.NoError(t, err)
			require.Eventually(t, func() bool { // the multi made both: one czxid
				p, pok := cc.Get(parent)
				c, cok := cc.Get(child)
				return pok && cok && p.Stat.Czxid == stat.Czxid && c.Stat.Czxid == stat.Czxid
			}, 10*time.Second, time.Millisecond, "the cache holds the new incarnations")
			idle(t, other, cc)
		}
		converges(t, other, cc, seq, -1)
		assert.Equal(t, 3+2*rounds, seq.Count(cache.Created), "the load's three, then the parent and the child each round")
		assert.Equal(t, rounds, seq.Count(cache.Changed), "the root's writes")
		assert.Equal(t, 2*rounds, seq.Count(cache.Deleted), "the child and the parent each round")
	})
}

// idle returns once the cache has read everything it was told of so far:
// it writes the root and waits for the cache to hold the write, which it
// reads after what came before it. The next write then finds the cache
// waiting, and its first notification read alone.
func idle(t *testing.T, other *framework.Client, cc *cache.Cache) {
	t.Helper()
	stat, err := other.Set(testContext(t), cc.Path(), []byte(time.Now().String()), -1)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		e, ok := cc.Get(cc.Path())
		return ok && e.Stat.Mzxid == stat.Mzxid
	}, 10*time.Second, time.Millisecond, "the cache reads the root's write")
}
