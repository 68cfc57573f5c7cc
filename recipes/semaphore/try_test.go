package semaphore_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// TryAcquire makes one attempt: a free lease is taken; with every lease
// held by another process, ErrNotAcquired and nothing left behind.
func TestSemaphore_TryAcquireTakesAFreeLeaseOrLeavesNothing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 1)
	l, err := s.TryAcquire(ctx)
	require.NoError(t, err, "the lease is free")
	require.NoError(t, l.Err())
	require.NoError(t, s.Release(ctx, l))

	held, err := newSemaphore(t, connect(t, zktest.Servers(t)), path, 1).Acquire(ctx)
	require.NoError(t, err)
	_, err = s.TryAcquire(ctx)
	require.ErrorIs(t, err, semaphore.ErrNotAcquired)
	assert.Equal(t, []string{held.Node()}, leaseNodes(t, path), "the attempt left no lease node")
	assert.Empty(t, children(t, c, path+"/locks"), "nor a guard node")
	require.NoError(t, held.Release(ctx))
}

// TryAcquireN takes n leases at once or none: with one of two held by
// another process, two are not acquired and nothing is left behind.
func TestSemaphore_TryAcquireNTakesAllOrLeavesNothing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 2)
	ls, err := s.TryAcquireN(ctx, 2)
	require.NoError(t, err, "both leases are free")
	require.Len(t, ls, 2)
	require.NoError(t, s.Release(ctx, ls...))

	held, err := newSemaphore(t, connect(t, zktest.Servers(t)), path, 2).Acquire(ctx)
	require.NoError(t, err)
	_, err = s.TryAcquireN(ctx, 2)
	require.ErrorIs(t, err, semaphore.ErrNotAcquired)
	assert.Equal(t, []string{held.Node()}, leaseNodes(t, path), "the attempt left no lease node")
	assert.Empty(t, children(t, c, path+"/locks"), "nor a guard node")
	_, err = s.TryAcquireN(ctx, 3)
	require.ErrorIs(t, err, semaphore.ErrInvalidArgument, "more than the maximum")
	require.NoError(t, held.Release(ctx))
}

// A semaphore mutex's TryAcquire takes the free lock, and refuses a held
// one with ErrNotAcquired, leaving nothing behind.
func TestMutex_TryAcquireTakesTheFreeLockOrLeavesNothing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	m, err := semaphore.NewMutex(c, path)
	require.NoError(t, err)
	l, err := m.TryAcquire(ctx)
	require.NoError(t, err, "the lock is free")
	require.NoError(t, m.Release(ctx))
	assert.Error(t, l.Err(), "the lease is released")

	other, err := semaphore.NewMutex(connect(t, zktest.Servers(t)), path)
	require.NoError(t, err)
	held, err := other.Acquire(ctx)
	require.NoError(t, err)
	_, err = m.TryAcquire(ctx)
	require.ErrorIs(t, err, semaphore.ErrNotAcquired)
	assert.Equal(t, []string{held.Node()}, leaseNodes(t, path), "the attempt left no lease node")
	assert.Empty(t, children(t, c, path+"/locks"), "nor a guard node")
	require.ErrorIs(t, m.Release(ctx), semaphore.ErrNotOwner, "the attempt holds nothing")
	require.NoError(t, other.Release(ctx))
}

// leaseNodes returns the paths of the lease nodes of the semaphore at path.
func leaseNodes(t *testing.T, path string) []string {
	t.Helper()
	var nodes []string
	for _, name := range children(t, connect(t, zktest.Servers(t)), path+"/leases") {
		nodes = append(nodes, path+"/leases/"+name)
	}
	return nodes
}
