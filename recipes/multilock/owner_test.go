package multilock_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/multilock"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// reentrant returns the multi-lock of l's mutex and write lock: the parts
// that are reentrant (a semaphore mutex is not).
func reentrant(t *testing.T, l locks) *multilock.Lock {
	t.Helper()
	ml, err := multilock.New(multilock.Mutex(l.m), multilock.Write(l.rw))
	require.NoError(t, err)
	return ml
}

// lockNodes returns the nodes of the mutex and the write lock under base.
func lockNodes(t *testing.T, c *framework.Client, base string) (a, b []string) {
	return children(t, c, base+"/a"), children(t, c, base+"/b")
}

func TestMultiLock_SameOwnerReentersItsParts(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	base := zktest.UniquePath(t)
	ml := reentrant(t, newLocks(t, c, base))
	first, err := ml.Acquire(ctx)
	require.NoError(t, err)
	second, err := ml.AcquireTimeout(ctx, time.Second)
	require.NoError(t, err, "the same goroutine acquires again")
	assert.NotSame(t, first, second, "each acquire has a hold of its own")
	assert.Equal(t, first.Parts(), second.Parts(), "the parts' holds are counted up, not taken twice")
	a, b := lockNodes(t, c, base)
	assert.Len(t, a, 1)
	assert.Len(t, b, 1)

	other := reentrant(t, newLocks(t, c, base))
	done := make(chan error, 1)
	go func() { // another goroutine is another owner; ends after one attempt
		_, err := other.TryAcquire(ctx)
		done <- err
	}()
	require.ErrorIs(t, <-done, multilock.ErrNotAcquired, "another goroutine took parts of a held multi-lock")

	require.NoError(t, first.Release(ctx))
	require.NoError(t, second.Err(), "releasing one hold left the other held")
	a, b = lockNodes(t, c, base)
	assert.Len(t, a, 1)
	assert.Len(t, b, 1)
	require.NoError(t, second.Release(ctx))
	assert.Empty(t, nodes(t, c, base))
}

func TestMultiLock_ConcurrentAcquiresByOneExplicitOwnerShareTheParts(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	base := zktest.UniquePath(t)
	ml := reentrant(t, newLocks(t, c, base))
	owner := &struct{ name string }{"worker"}
	ctx := mutex.ContextWithOwner(testContext(t), owner)
	release := holdPart(t, newLocks(t, connect(t, zktest.Servers(t)), base), 1)

	holds := make(chan *multilock.Hold, 2)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { // ends when the acquire does
			h, err := ml.Acquire(ctx)
			if assert.NoError(t, err) {
				holds <- h
			}
		})
	}
	require.Eventually(t, func() bool { return len(children(t, c, base+"/b")) == 2 }, 10*time.Second, 10*time.Millisecond, "an acquire waits at the write lock")
	a, b := lockNodes(t, c, base)
	assert.Len(t, a, 1, "one owner queued two nodes on the mutex")
	assert.Len(t, b, 2, "one owner queued two nodes on the write lock")
	release()
	wg.Wait()
	close(holds)
	var got []*multilock.Hold
	for h := range holds {
		got = append(got, h)
	}
	require.Len(t, got, 2)
	assert.Equal(t, got[0].Parts(), got[1].Parts(), "the owner's two holds share their parts")
	// Possession of a hold is ownership: any goroutine releases it.
	require.NoError(t, got[0].Release(context.Background()))
	require.NoError(t, got[1].Err())
	require.NoError(t, got[1].Release(context.Background()))
	assert.Empty(t, nodes(t, c, base))
}

func TestHold_ConcurrentReleasesGiveThePartsUpOnce(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	base := zktest.UniquePath(t)
	ml := reentrant(t, newLocks(t, c, base))
	outer, err := ml.Acquire(ctx)
	require.NoError(t, err)
	inner, err := ml.Acquire(ctx)
	require.NoError(t, err)

	errs := make(chan error, 2)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { errs <- inner.Release(ctx) }) // ends with the release
	}
	wg.Wait()
	close(errs)
	var released, refused int
	for err := range errs {
		if err == nil {
			released++
		} else if assert.ErrorIs(t, err, multilock.ErrReleased) {
			refused++
		}
	}
	assert.Equal(t, 1, released)
	assert.Equal(t, 1, refused)
	require.NoError(t, outer.Err(), "a second release of one hold gave up the other's parts")
	a, b := lockNodes(t, c, base)
	assert.Len(t, a, 1)
	assert.Len(t, b, 1)
	require.NoError(t, outer.Release(ctx))
	assert.Empty(t, nodes(t, c, base))
}
