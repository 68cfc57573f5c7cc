package atomicvalue_test

import (
	"math"
	"path"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
)

func TestLong_GetOfAMissingNodeSucceedsWithZeroAndCreatesNothing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	l := newLong(t, c, zktest.UniquePath(t))

	r, err := l.Get(ctx)
	require.NoError(t, err)
	assert.True(t, r.Succeeded)
	assert.Zero(t, r.PreValue)
	assert.Zero(t, r.PostValue)
	ok, _, err := c.Exists(ctx, l.Path())
	require.NoError(t, err)
	assert.False(t, ok, "a read creates nothing")
}

// The first increment creates the node, with container parents, holding 8
// bytes big-endian; the next ones count up from it.
func TestLong_IncrementCreatesTheNodeInCuratorsFormatAndCountsUp(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	l := newLong(t, c, zktest.UniquePath(t)+"/parent/count")

	r, err := l.Increment(ctx)
	require.NoError(t, err)
	assert.True(t, r.Succeeded)
	assert.Equal(t, int64(0), r.PreValue)
	assert.Equal(t, int64(1), r.PostValue)
	assert.Equal(t, 1, r.Stats.OptimisticTries)
	assert.Zero(t, r.Stats.PromotedTries)
	data, _ := nodeData(t, c, l.Path())
	assert.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, 1}, data)

	r, err = l.Add(ctx, 1<<40)
	require.NoError(t, err)
	assert.Equal(t, int64(1), r.PreValue)
	assert.Equal(t, int64(1<<40+1), r.PostValue)
	r, err = l.Subtract(ctx, 5)
	require.NoError(t, err)
	assert.Equal(t, int64(1<<40-4), r.PostValue)
	r, err = l.Decrement(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(1<<40-5), r.PostValue)
	got, err := l.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(1<<40-5), got.PreValue)
	assert.Equal(t, got.PreValue, got.PostValue)

	ok, _, err := c.Exists(ctx, path.Dir(l.Path()))
	require.NoError(t, err)
	assert.True(t, ok, "its parents were made")
}

func TestInt_AddWritesFourBytesAndWrapsNothing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	n := newInt(t, c, zktest.UniquePath(t))

	r, err := n.Add(ctx, -3)
	require.NoError(t, err)
	assert.True(t, r.Succeeded)
	assert.Equal(t, int32(-3), r.PostValue)
	data, _ := nodeData(t, c, n.Path())
	assert.Equal(t, []byte{0xff, 0xff, 0xff, 0xfd}, data)

	require.NoError(t, n.ForceSet(ctx, math.MaxInt32))
	_, version := nodeData(t, c, n.Path())
	_, err = n.Increment(ctx)
	require.ErrorIs(t, err, atomicvalue.ErrOverflow)
	_, after := nodeData(t, c, n.Path())
	assert.Equal(t, version, after, "nothing written")
}

func TestLong_CompareAndSetWritesOnlyOverTheExpectedValue(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	l := newLong(t, c, zktest.UniquePath(t))

	r, err := l.CompareAndSet(ctx, 0, 5)
	require.NoError(t, err)
	assert.False(t, r.Succeeded, "a missing node is no value to compare")
	ok, _, err := c.Exists(ctx, l.Path())
	require.NoError(t, err)
	assert.False(t, ok, "and it is not created")

	require.NoError(t, l.ForceSet(ctx, 7))
	r, err = l.CompareAndSet(ctx, 6, 8)
	require.NoError(t, err)
	assert.False(t, r.Succeeded)
	assert.Equal(t, int64(7), r.PreValue)
	assert.Zero(t, r.PostValue)

	r, err = l.CompareAndSet(ctx, 7, 8)
	require.NoError(t, err)
	assert.True(t, r.Succeeded)
	assert.Equal(t, int64(7), r.PreValue)
	assert.Equal(t, int64(8), r.PostValue)
	assert.Equal(t, 0, r.Stats.OptimisticTries, "counted as Curator counts it")
}

func TestLong_InitializeCreatesTheNodeOnlyIfItIsMissing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	l := newLong(t, c, zktest.UniquePath(t)+"/a/b")

	ok, err := l.Initialize(ctx, 40)
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = l.Initialize(ctx, 50)
	require.NoError(t, err)
	assert.False(t, ok)
	r, err := l.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(40), r.PreValue)
}

func TestLong_TrySetAndForceSetWriteOverWhateverIsThere(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	l := newLong(t, c, zktest.UniquePath(t))

	r, err := l.TrySet(ctx, -9)
	require.NoError(t, err)
	assert.True(t, r.Succeeded)
	assert.Zero(t, r.PreValue)
	assert.Equal(t, int64(-9), r.PostValue)
	r, err = l.TrySet(ctx, 11)
	require.NoError(t, err)
	assert.Equal(t, int64(-9), r.PreValue)
	assert.Equal(t, int64(11), r.PostValue)

	_, err = c.Set(ctx, l.Path(), []byte("not a long"), -1)
	require.NoError(t, err)
	require.NoError(t, l.ForceSet(ctx, 3), "ForceSet writes over a malformed node")
	got, err := l.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(3), got.PreValue)

	require.NoError(t, newLong(t, c, zktest.UniquePath(t)+"/new/x").ForceSet(ctx, 1), "and creates a missing one")
}

// A node created without data reads as 0, as Curator reads it, and counts
// up from there.
func TestLong_EmptyNodeIsZero(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	_, err := c.Create(ctx, path, nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)

	r, err := newLong(t, c, path).Increment(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(0), r.PreValue)
	assert.Equal(t, int64(1), r.PostValue)
}

func TestBytes_ComparesAndWritesWholeBytes(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	b := newBytes(t, c, zktest.UniquePath(t))

	r, err := b.Get(ctx)
	require.NoError(t, err)
	assert.True(t, r.Succeeded)
	assert.Nil(t, r.PreValue, "a missing node has no bytes")

	ok, err := b.Initialize(ctx, []byte("one"))
	require.NoError(t, err)
	assert.True(t, ok)
	r, err = b.CompareAndSet(ctx, []byte("on"), []byte("two"))
	require.NoError(t, err)
	assert.False(t, r.Succeeded)
	assert.Equal(t, []byte("one"), r.PreValue)
	r, err = b.CompareAndSet(ctx, []byte("one"), []byte("two"))
	require.NoError(t, err)
	assert.True(t, r.Succeeded)
	assert.Equal(t, []byte("two"), r.PostValue)

	r, err = b.TrySet(ctx, []byte{0, 1, 2})
	require.NoError(t, err)
	assert.True(t, r.Succeeded)
	assert.Equal(t, []byte("two"), r.PreValue)
	require.NoError(t, b.ForceSet(ctx, []byte("four")))
	data, _ := nodeData(t, c, b.Path())
	assert.Equal(t, []byte("four"), data)
}
