package mutex_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

func TestHold_NodeKeptOnLossWaitsForTheRelease(t *testing.T) {
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
	lost := h.Lost()
	proxy.Cut() // a suspension: the session lives on
	zktest.WaitClosed(t, lost, 10*time.Second, "the loss on suspension")
	require.NoError(t, c.WaitConnected(ctx))
	assert.Never(t, func() bool { return len(zktest.Children(t, observer, path)) == 0 },
		time.Second, 20*time.Millisecond, "the lost hold's node went before its release")

	require.ErrorIs(t, h.Release(ctx), mutex.ErrLost)
	assert.Empty(t, zktest.Children(t, observer, path), "the release returned before the node was deleted")
}
