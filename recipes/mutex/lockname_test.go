package mutex_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/mutex/lockdriver"
)

// A lock named other than "lock-" queues by the sequence after its own
// name, not by the random protection id in front of it: each of the 20
// tries below carries a fresh id, half of which sort before the holder's.
func TestMutex_OwnLockNameOrdersTheQueue(t *testing.T) {
	servers := zktest.Servers(t)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	holder, err := mutex.NewWithDriver(connect(t, servers), path, "foo-", lockdriver.StandardDriver(1))
	require.NoError(t, err)
	h, err := holder.Acquire(ctx)
	require.NoError(t, err)

	other, err := mutex.NewWithDriver(connect(t, servers), path, "foo-", lockdriver.StandardDriver(1))
	require.NoError(t, err)
	for try := range 20 {
		_, err := other.TryAcquire(ctx)
		require.ErrorIs(t, err, mutex.ErrNotAcquired, "try %d acquired a held lock", try)
	}
	require.NoError(t, h.Release(ctx))
	h2, err := other.TryAcquire(ctx)
	require.NoError(t, err)
	require.NoError(t, h2.Release(ctx))
}

func TestMutex_HeldIsTheOwnersHold(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	m := newMutex(t, c, zktest.UniquePath(t))
	assert.Nil(t, m.Held(ctx))
	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	assert.Same(t, h, m.Held(ctx))
	assert.Nil(t, m.Held(mutex.ContextWithOwner(ctx, "someone else")))
	assert.Nil(t, m.Held(mutex.ContextWithOwner(ctx, []int{1})), "a non-comparable owner holds nothing")
	require.NoError(t, h.Release(ctx))
	assert.Nil(t, m.Held(ctx))
	_, err = mutex.New(c, "/lock", mutex.WithPlace(nil))
	require.ErrorIs(t, err, mutex.ErrInvalidArgument)
}
