package semaphore_test

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// 16 clients, each its own session, share a semaphore of 3 leases for 1000
// acquisitions in all: never more than 3 holders, none left at the end.
func TestLoad_SixteenClientsNeverHoldMoreThanThree(t *testing.T) {
	t.Parallel()
	const clients, maxLeases = 16, 3
	total := 1000
	if testing.Short() {
		total = 160
	}
	path := zktest.UniquePath(t)
	ctx := testContext(t)
	var holders, peak, remaining, first atomic.Int64
	remaining.Store(int64(total))
	sems := make([]*semaphore.Semaphore, clients)
	for i := range sems {
		sems[i] = newSemaphore(t, connect(t, zktest.Servers(t)), path, maxLeases)
	}
	var wg sync.WaitGroup
	start := time.Now()
	for _, s := range sems {
		wg.Go(func() { // ends when the acquisitions are used up, or at the first failure
			for remaining.Add(-1) >= 0 {
				l, err := s.Acquire(ctx)
				if !assert.NoError(t, err) {
					return
				}
				now := holders.Add(1)
				raise(&peak, now)
				assert.LessOrEqual(t, now, int64(maxLeases), "more holders than leases")
				if first.Add(1) <= maxLeases {
					// The first holders stay until all leases are out, so that
					// "the leases were used" does not hang on a loaded
					// machine's timing; the bound ends it if they never are.
					awaitPeak(&peak, maxLeases, 10*time.Second)
				}
				time.Sleep(time.Duration(rand.IntN(4000)) * time.Microsecond) // work, so holders overlap
				holders.Add(-1)
				if !assert.NoError(t, l.Release(ctx)) {
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	t.Logf("%d acquisitions by %d clients in %v (%.0f/s), peak %d holders",
		total, clients, elapsed, float64(total)/elapsed.Seconds(), peak.Load())
	assert.Equal(t, int64(0), holders.Load(), "back to 0")
	assert.LessOrEqual(t, peak.Load(), int64(maxLeases))
	assert.Equal(t, int64(maxLeases), peak.Load(), "the leases were used")
	observer := connect(t, zktest.Servers(t))
	require.Equal(t, 0, nodeCount(t, observer, path), "leases and guard directories are empty")
}

// awaitPeak waits until peak reaches want or bound passes.
func awaitPeak(peak *atomic.Int64, want int64, bound time.Duration) {
	for end := time.Now().Add(bound); peak.Load() < want && time.Now().Before(end); {
		time.Sleep(time.Millisecond)
	}
}
