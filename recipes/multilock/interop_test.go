package multilock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/multilock"
)

// curatorParts names l's three locks as the Curator peer takes them.
func curatorParts(base string) []string {
	return []string{base + "/a", "write:" + base + "/b", "sem:" + base + "/c"}
}

func TestInterop_CuratorMultiLockExcludesGoAndGoExcludesIt(t *testing.T) {
	curator := zktest.StartCurator(t, zktest.Servers(t))
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	base := zktest.UniquePath(t)
	ml := newLocks(t, c, base).multi(t)

	ok, err := curator.MultiAcquire(ctx, "c1", 10*time.Second, curatorParts(base)...)
	require.NoError(t, err)
	require.True(t, ok)
	theirs := nodes(t, c, base)
	require.Len(t, theirs, 3, "Curator's multi-lock holds a node in each part")
	_, err = ml.AcquireTimeout(ctx, heldTimeout)
	require.ErrorIs(t, err, multilock.ErrNotAcquired, "Go took a multi-lock that Curator holds")
	assert.Equal(t, theirs, nodes(t, c, base), "Go's timed-out acquire left nodes behind")

	require.NoError(t, curator.MultiRelease(ctx, "c1"))
	h, err := ml.AcquireTimeout(ctx, 10*time.Second)
	require.NoError(t, err, "Go takes the multi-lock that Curator released")
	for _, part := range curatorParts(base) {
		ok, err := curator.MultiAcquire(ctx, "c2", 300*time.Millisecond, part)
		require.NoError(t, err)
		assert.False(t, ok, "Curator took %s of a multi-lock that Go holds", part)
	}
	ok, err = curator.MultiAcquire(ctx, "c2", 300*time.Millisecond, curatorParts(base)...)
	require.NoError(t, err)
	assert.False(t, ok, "Curator took a multi-lock that Go holds")

	require.NoError(t, h.Release(ctx))
	ok, err = curator.MultiAcquire(ctx, "c2", 10*time.Second, curatorParts(base)...)
	require.NoError(t, err)
	assert.True(t, ok, "Curator takes the multi-lock that Go released")
	require.NoError(t, curator.MultiRelease(ctx, "c2"))
	assert.Empty(t, nodes(t, c, base))
}
