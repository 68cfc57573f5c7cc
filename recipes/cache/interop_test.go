package cache_test

import (
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
)

// Data Curator wrote compressed reads as its text, and a Go cache and
// Curator's CuratorCache of one tree hold the same nodes.
func TestCache_AgreesWithCuratorsCuratorCacheOnCompressedData(t *testing.T) {
	servers := zktest.Servers(t)
	peer := zktest.StartCurator(t, servers)
	c := connect(t, servers)
	ctx := testContext(t)
	root := zktest.UniquePath(t)
	// Every node of the tree compressed: Curator 5.4's cache gives up
	// on one that is not (DataInconsistency), where this one keeps it.
	for _, p := range []string{root, root + "/a", root + "/a/b", root + "/c"} {
		require.NoError(t, peer.CreateCompressed(ctx, p, "text-of-"+p[len(root):]))
	}

	cc, _ := started(t, c, root, cache.WithCompressedData())
	var ours []string
	for _, e := range cc.Entries() {
		ours = append(ours, fmt.Sprintf("%s=%s@%d", e.Path, e.Data, e.Stat.Version))
	}
	sort.Strings(ours)
	theirs, err := peer.CacheSnapshot(ctx, root, true)
	require.NoError(t, err)
	assert.Equal(t, theirs, ours)
	e, _ := cc.Get(root + "/a/b")
	assert.Equal(t, "text-of-/a/b", string(e.Data))
}
