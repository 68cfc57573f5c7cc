package sharedcount_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// Go and Curator's SharedCount read and write one count: each sees the
// other's writes, a Go watch sees Curator's, and compare-and-set works
// across them.
func TestCurator_SharesOneCount(t *testing.T) {
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)

	n, err := cur.CountGet(ctx, path) // Curator creates it with its seed, 0
	require.NoError(t, err)
	assert.Equal(t, 0, n)
	sc := newCount(t, c, path, 42)
	v, err := sc.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, int32(0), v.Count, "Curator's seed, not ours")

	ch, err := sc.Watch(ctx)
	require.NoError(t, err)
	assert.Equal(t, int32(0), next(t, ch).Count)
	require.NoError(t, cur.CountSet(ctx, path, 7))
	assert.Equal(t, int32(7), next(t, ch).Count, "a Go watch sees Curator's write")

	require.NoError(t, sc.Set(ctx, -12))
	n, err = cur.CountGet(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, -12, n, "Curator reads Go's write, negative included")
	assert.Equal(t, int32(-12), next(t, ch).Count)

	v, err = sc.Get(ctx)
	require.NoError(t, err)
	ok, err := cur.CountTrySet(ctx, path, 100, int(v.Version))
	require.NoError(t, err)
	assert.True(t, ok, "Curator's compare-and-set against the version Go read")
	ok, err = sc.TrySet(ctx, 5, v.Version)
	require.NoError(t, err)
	assert.False(t, ok, "Go's compare-and-set against the same, now stale, version")
	ok, err = cur.CountTrySet(ctx, path, 6, int(v.Version))
	require.NoError(t, err)
	assert.False(t, ok, "Curator's too")
	v, err = sc.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, int32(100), v.Count)
}
