package mutex_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

func TestInterop_GoHolderBlocksCurator(t *testing.T) {
	curator := zktest.StartCurator(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	h, err := newMutex(t, connect(t, zktest.Servers(t)), path).Acquire(ctx)
	require.NoError(t, err)

	ok, err := curator.MutexAcquire(ctx, "c1", path, 300*time.Millisecond)
	require.NoError(t, err)
	assert.False(t, ok, "Curator acquired a lock held by Go")
	require.NoError(t, h.Release(ctx))
	ok, err = curator.MutexAcquire(ctx, "c1", path, 10*time.Second)
	require.NoError(t, err)
	assert.True(t, ok)
	require.NoError(t, curator.MutexRelease(ctx, "c1"))
}

func TestInterop_CuratorHolderBlocksGo(t *testing.T) {
	curator := zktest.StartCurator(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	ok, err := curator.MutexAcquire(ctx, "c1", path, 10*time.Second)
	require.NoError(t, err)
	require.True(t, ok)

	m := newMutex(t, connect(t, zktest.Servers(t)), path)
	_, err = m.AcquireTimeout(ctx, heldTimeout)
	require.ErrorIs(t, err, mutex.ErrNotAcquired, "Go acquired a lock held by Curator")
	acquired := make(chan error, 1)
	go func() {
		h, err := m.Acquire(ctx)
		if err == nil {
			err = h.Release(ctx)
		}
		acquired <- err
	}()
	require.NoError(t, curator.MutexRelease(ctx, "c1"))
	require.NoError(t, <-acquired)
}

// Go and Curator waiters queue alternately behind a Go holder; each side
// sees the other's nodes, and the lock passes in sequence order.
func TestInterop_MixedQueueIsServedInSequenceOrder(t *testing.T) {
	curator := zktest.StartCurator(t, zktest.Servers(t))
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	holder := newMutex(t, c, path)
	h, err := holder.Acquire(ctx)
	require.NoError(t, err)

	var mu sync.Mutex
	var order []string
	record := func(name string) {
		mu.Lock()
		order = append(order, name)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	queue := []string{"curator-1", "go-1", "curator-2", "go-2"}
	for i, name := range queue {
		if name[0] == 'c' {
			wg.Go(func() {
				ok, err := curator.MutexAcquire(ctx, name, path, 60*time.Second)
				if assert.NoError(t, err) && assert.True(t, ok) {
					record(name)
					assert.NoError(t, curator.MutexRelease(ctx, name))
				}
			})
		} else {
			m := newMutex(t, connect(t, zktest.Servers(t)), path)
			wg.Go(func() {
				h, err := m.Acquire(ctx)
				if assert.NoError(t, err) {
					record(name)
					assert.NoError(t, h.Release(ctx))
				}
			})
		}
		// Fix the sequence order: the next waiter queues after this one.
		require.Eventually(t, func() bool { return len(children(t, c, path)) == i+2 }, 20*time.Second, 10*time.Millisecond, "waiter %s queued", name)
	}

	goView, err := holder.Participants(ctx)
	require.NoError(t, err)
	curatorView, err := curator.MutexParticipants(ctx, path)
	require.NoError(t, err)
	assert.Len(t, goView, 5)
	assert.Equal(t, participantNodes(goView), curatorView, "both sides see the same queue in the same order")
	assert.Equal(t, h.Node(), goView[0].Node)

	require.NoError(t, h.Release(ctx))
	wg.Wait()
	assert.Equal(t, queue, order, fmt.Sprintf("served out of order: %v", order))
	assert.Empty(t, children(t, c, path))
}
