package mutex_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// overlapDetector checks the standard error policy's promise: a new holder
// never finds the previous hold still unsignalled.
type overlapDetector struct {
	mu       sync.Mutex
	current  *mutex.Hold
	overlaps int
}

func (d *overlapDetector) acquired(h *mutex.Hold) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.current != nil {
		select {
		case <-d.current.Lost():
		default:
			d.overlaps++
		}
	}
	d.current = h
}

func (d *overlapDetector) released(h *mutex.Hold) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.current == h {
		d.current = nil
	}
}

// Clients of a three-server ensemble contend while the leader is stopped
// and started again: no two holds overlap unsignalled, and nothing is left.
func TestChaos_LeaderRestartUnderContention(t *testing.T) {
	t.Parallel()
	ensemble := zktest.NewEnsemble(t, 3)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	const clients, total = 4, 200
	var detector overlapDetector
	var done, failures atomic.Int64
	var wg sync.WaitGroup
	for range clients {
		c, err := framework.Connect(ctx, ensemble.Addrs(), framework.WithSessionTimeout(20*time.Second))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		m := newMutex(t, c, path)
		wg.Go(func() {
			for done.Add(1) <= total {
				h, err := m.Acquire(ctx)
				if err != nil {
					failures.Add(1)
					continue
				}
				detector.acquired(h)
				select {
				case <-h.Lost():
				case <-time.After(2 * time.Millisecond):
				}
				detector.released(h)
				if err := h.Release(ctx); err != nil && !errors.Is(err, mutex.ErrLost) {
					failures.Add(1)
				}
			}
		})
	}
	require.Eventually(t, func() bool { return done.Load() > total/4 }, time.Minute, 10*time.Millisecond)
	leader, err := ensemble.Leader(ctx)
	require.NoError(t, err)
	require.NoError(t, ensemble.StopMember(leader))
	require.Eventually(t, func() bool { return done.Load() > total/2 }, time.Minute, 10*time.Millisecond)
	start, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, ensemble.StartMember(start, leader))
	wg.Wait()

	assert.Zero(t, detector.overlaps, "a holder acquired while the previous hold was not signalled lost")
	t.Logf("acquisitions=%d failures=%d", total, failures.Load())
	observer, err := framework.Connect(ctx, ensemble.Addrs())
	require.NoError(t, err)
	defer observer.Close()
	require.Eventually(t, func() bool { return len(children(t, observer, path)) == 0 }, 30*time.Second, 50*time.Millisecond,
		"no lock node is left behind")
}
