package rwlock_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
)

func TestInterop_GoWriterExcludesCurator(t *testing.T) {
	t.Parallel()
	curator := zktest.StartCurator(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	w, err := newRW(t, connect(t, zktest.Servers(t)), path).WriteLock().Acquire(ctx)
	require.NoError(t, err)

	for _, write := range []bool{false, true} {
		ok, err := curator.RWAcquire(ctx, "c1", path, write, 300*time.Millisecond)
		require.NoError(t, err)
		assert.False(t, ok, "Curator (write %v) acquired a lock a Go writer holds", write)
	}
	require.NoError(t, w.Release(ctx))
	ok, err := curator.RWAcquire(ctx, "c1", path, true, 10*time.Second)
	require.NoError(t, err)
	assert.True(t, ok)
	require.NoError(t, curator.RWRelease(ctx, "c1", true))
}

func TestInterop_CuratorWriterExcludesGo(t *testing.T) {
	t.Parallel()
	curator := zktest.StartCurator(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	ok, err := curator.RWAcquire(ctx, "c1", path, true, 10*time.Second)
	require.NoError(t, err)
	require.True(t, ok)

	rw := newRW(t, connect(t, zktest.Servers(t)), path)
	for _, l := range []*rwlock.Lock{rw.ReadLock(), rw.WriteLock()} {
		_, err = l.AcquireTimeout(ctx, heldTimeout)
		require.ErrorIs(t, err, rwlock.ErrNotAcquired, "Go acquired a lock a Curator writer holds")
	}
	reader := start(rw.ReadLock())
	require.NoError(t, curator.RWRelease(ctx, "c1", true))
	reader.held(t, "the Go reader")
	ok, err = curator.RWAcquire(ctx, "c1", path, true, 300*time.Millisecond)
	require.NoError(t, err)
	assert.False(t, ok, "Curator acquired the write lock a Go reader holds")
	reader.finish(t)
}

func TestInterop_GoAndCuratorReadersShare(t *testing.T) {
	curator := zktest.StartCurator(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	r, err := newRW(t, connect(t, zktest.Servers(t)), path).ReadLock().Acquire(ctx)
	require.NoError(t, err)
	ok, err := curator.RWAcquire(ctx, "c1", path, false, 10*time.Second)
	require.NoError(t, err)
	require.True(t, ok, "a Curator reader shares a Go reader's lock")
	r2, err := newRW(t, connect(t, zktest.Servers(t)), path).ReadLock().TryAcquire(ctx)
	require.NoError(t, err, "a Go reader shares a Curator reader's lock")
	require.NoError(t, r.Release(ctx))
	require.NoError(t, r2.Release(ctx))
	require.NoError(t, curator.RWRelease(ctx, "c1", false))
}

// Go and Curator readers and writers queue alternately behind a Go
// writer; both sides see the same queue, and it is served in sequence
// order.
func TestInterop_MixedQueueIsServedInSequenceOrder(t *testing.T) {
	curator := zktest.StartCurator(t, zktest.Servers(t))
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	holder := newRW(t, c, path)
	h, err := holder.WriteLock().Acquire(ctx)
	require.NoError(t, err)

	var mu sync.Mutex
	var order []string
	record := func(name string) {
		mu.Lock()
		order = append(order, name)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	// No two readers are adjacent, so the order of acquisitions is fixed.
	queue := []struct {
		name          string
		curator, read bool
	}{
		{"curator-read-1", true, true}, {"go-write-1", false, false}, {"curator-write-2", true, false},
		{"go-read-2", false, true}, {"curator-write-3", true, false}, {"go-read-3", false, true}, {"go-write-4", false, false},
	}
	for i, q := range queue {
		if q.curator {
			wg.Go(func() {
				ok, err := curator.RWAcquire(ctx, q.name, path, !q.read, 60*time.Second)
				if assert.NoError(t, err) && assert.True(t, ok) {
					record(q.name)
					assert.NoError(t, curator.RWRelease(ctx, q.name, !q.read))
				}
			})
		} else {
			rw := newRW(t, connect(t, zktest.Servers(t)), path)
			l := rw.WriteLock()
			if q.read {
				l = rw.ReadLock()
			}
			wg.Go(func() {
				h, err := l.Acquire(ctx)
				if assert.NoError(t, err) {
					record(q.name)
					assert.NoError(t, h.Release(ctx))
				}
			})
		}
		// Fix the sequence order: the next waiter queues after this one.
		queued(t, c, path, i+2)
	}

	for _, write := range []bool{false, true} {
		l := holder.ReadLock()
		if write {
			l = holder.WriteLock()
		}
		goView, err := l.Participants(ctx)
		require.NoError(t, err)
		curatorView, err := curator.RWParticipants(ctx, path, write)
		require.NoError(t, err)
		assert.Equal(t, participantNodes(goView), curatorView, "both sides see the same queue (write %v)", write)
	}
	writers, err := holder.WriteLock().Participants(ctx)
	require.NoError(t, err)
	assert.Len(t, writers, 5)
	assert.Equal(t, h.Node(), writers[0].Node)

	require.NoError(t, h.Release(ctx))
	wg.Wait()
	var want []string
	for _, q := range queue {
		want = append(want, q.name)
	}
	assert.Equal(t, want, order, fmt.Sprintf("served out of order: %v", order))
	assert.Empty(t, children(t, c, path))
}

// A Go writer downgrades while a Curator writer waits behind it: Curator
// 5.4 cannot downgrade this way itself, but it orders the read node at the
// writer's place, and so stays out until the read lock is released.
func TestInterop_CuratorWriterWaitsForAGoDowngradedReader(t *testing.T) {
	t.Parallel()
	curator := zktest.StartCurator(t, zktest.Servers(t))
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	rw := newRW(t, c, path)
	w, err := rw.WriteLock().Acquire(ctx)
	require.NoError(t, err)
	acquired := make(chan error, 1)
	go func() { // ends when Curator answers: acquired, or 60 s out
		ok, err := curator.RWAcquire(ctx, "c1", path, true, 60*time.Second)
		if err == nil && !ok {
			err = fmt.Errorf("curator timed out")
		}
		acquired <- err
	}()
	queued(t, c, path, 2)
	r, err := rw.ReadLock().Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, w.Release(ctx))
	select {
	case err := <-acquired:
		t.Fatalf("Curator's writer acquired while the downgraded read lock is held (%v)", err)
	case <-time.After(time.Second):
	}
	require.NoError(t, r.Release(ctx))
	select {
	case err := <-acquired:
		require.NoError(t, err)
	case <-time.After(60 * time.Second):
		t.Fatal("Curator's writer did not acquire")
	}
	require.NoError(t, curator.RWRelease(ctx, "c1", true))
	assert.Empty(t, children(t, c, path))
}
