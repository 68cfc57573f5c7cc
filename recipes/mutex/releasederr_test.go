package mutex_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// A released hold's Err wraps ErrReleased, as a released lease's and a
// multi-lock hold's do, so that one errors.Is tells a release from a loss
// in every recipe.
func TestHold_ErrAfterTheReleaseWrapsErrReleased(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	m, err := mutex.New(c, zktest.UniquePath(t))
	require.NoError(t, err)
	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Release(ctx))
	assert.ErrorIs(t, h.Err(), mutex.ErrReleased)
	assert.NotErrorIs(t, h.Err(), mutex.ErrLost)
}
