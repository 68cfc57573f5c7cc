package mutex_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// A hold lost to a connection cut that its session survives is reclaimed
// with its node: the new hold stands on the same node, the waiter behind
// stays out, and the spent hold's release changes nothing.
func TestMutex_ReclaimAfterABlipHoldsWithTheSameNode(t *testing.T) {
	t.Parallel()
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := zktest.Connect(t, proxy.Addr())
	observer := zktest.Connect(t, servers)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	m := newMutex(t, c, path, mutex.WithNodeKeptOnLoss())
	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	waiter := make(chan error, 1)
	other := newMutex(t, observer, path)
	// Ends when the other holds, or ctx ends.
	go func() {
		oh, err := other.Acquire(ctx)
		if err == nil {
			err = oh.Release(ctx)
		}
		waiter <- err
	}()
	require.Eventually(t, func() bool { return len(zktest.Children(t, observer, path)) == 2 }, 10*time.Second, 5*time.Millisecond)

	lost := h.Lost()
	proxy.Cut()
	zktest.WaitClosed(t, lost, 10*time.Second, "the loss on suspension")
	again, err := m.Reclaim(ctx, h)
	require.NoError(t, err)
	assert.Equal(t, h.Node(), again.Node())
	assert.NoError(t, again.Err())
	assert.Same(t, again, m.Held(ctx), "the owner's hold is the new one")
	require.ErrorIs(t, h.Release(ctx), mutex.ErrReleased)
	assert.Len(t, zktest.Children(t, observer, path), 2, "the spent hold's release deleted nothing")
	assert.Empty(t, waiter, "the waiter held during the blip")

	require.NoError(t, again.Release(ctx))
	require.NoError(t, <-waiter)
}

// A lost hold of a mutex that does not keep the node cannot be reclaimed:
// its node is being deleted.
func TestMutex_ReclaimNeedsTheNodeKept(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := zktest.Connect(t, proxy.Addr())
	ctx := zktest.Context(t)
	m := newMutex(t, c, zktest.UniquePath(t))
	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	lost := h.Lost()
	proxy.Cut()
	zktest.WaitClosed(t, lost, 10*time.Second, "the loss on suspension")
	_, err = m.Reclaim(ctx, h)
	require.ErrorIs(t, err, mutex.ErrInvalidArgument)
	require.ErrorIs(t, h.Release(ctx), mutex.ErrLost)
}
