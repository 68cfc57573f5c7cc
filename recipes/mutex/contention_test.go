package mutex_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// Eight clients, each its own session, take the lock 500 times in all; an
// in-process detector counts the holders at every moment.
func TestContention_EightSessionsNeverOverlap(t *testing.T) {
	const clients = 8
	total := 500
	if testing.Short() {
		total = 80
	}
	path := zktest.UniquePath(t)
	ctx := testContext(t)
	var holders, overlaps, done atomic.Int64
	var wg sync.WaitGroup
	for range clients {
		m := newMutex(t, connect(t, zktest.Servers(t)), path)
		wg.Go(func() {
			for done.Add(1) <= int64(total) {
				h, err := m.Acquire(ctx)
				if !assert.NoError(t, err) {
					return
				}
				if holders.Add(1) != 1 {
					overlaps.Add(1)
				}
				runtime.Gosched() // widen the window an overlap would show in
				holders.Add(-1)
				if !assert.NoError(t, h.Release(ctx)) {
					return
				}
			}
		})
	}
	wg.Wait()
	assert.Zero(t, overlaps.Load(), "two holders at once")
	assert.Empty(t, children(t, connect(t, zktest.Servers(t)), path))
}

// Many goroutines of one process waiting on one Mutex each hold it in turn,
// without sharing a monitor (Curator's CURATOR-716).
func TestContention_GoroutinesOfOneProcessTakeTurns(t *testing.T) {
	goroutines := 100
	if testing.Short() {
		goroutines = 20
	}
	c := connect(t, zktest.Servers(t), framework.WithRetryPolicy(framework.DefaultRetryPolicy()))
	path := zktest.UniquePath(t)
	m := newMutex(t, c, path)
	ctx := testContext(t)
	var holders, overlaps, acquired atomic.Int64
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			h, err := m.Acquire(ctx)
			if !assert.NoError(t, err) {
				return
			}
			if holders.Add(1) != 1 {
				overlaps.Add(1)
			}
			acquired.Add(1)
			runtime.Gosched()
			holders.Add(-1)
			assert.NoError(t, h.Release(ctx))
		})
	}
	wg.Wait()
	require.Equal(t, int64(goroutines), acquired.Load())
	assert.Zero(t, overlaps.Load())
	assert.Empty(t, children(t, c, path))
}
