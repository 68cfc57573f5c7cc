package rwlock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
)

// A write acquire by an owner whose read hold is lost gives the loss, not
// the upgrade error: the owner must release the lost hold, and may then
// take the write lock.
func TestRWLock_WriteAcquireAfterALostReadHoldGivesTheLoss(t *testing.T) {
	servers := zktest.Servers(t)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	rw := newRW(t, connect(t, servers), path)
	r, err := rw.ReadLock().Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, connect(t, servers).Delete(ctx, r.Node(), -1))
	waitClosed(t, r.Lost(), 10*time.Second, "the read hold's loss")

	_, err = rw.WriteLock().Acquire(ctx)
	require.ErrorIs(t, err, rwlock.ErrLost)
	assert.NotErrorIs(t, err, rwlock.ErrUpgrade)
	require.ErrorIs(t, r.Release(ctx), rwlock.ErrLost)
	w, err := rw.WriteLock().Acquire(ctx)
	require.NoError(t, err, "after the lost hold is released")
	require.NoError(t, w.Release(ctx))
}
