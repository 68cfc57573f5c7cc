package rwlock_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
)

// exclusion counts the holders of a lock in this process and the
// violations it sees: a writer not alone, a reader beside a writer.
type exclusion struct {
	mu                 sync.Mutex
	readers, writers   int
	maxReaders         int
	violations, served int
}

func (e *exclusion) enter(write bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if write {
		e.writers++
		if e.writers > 1 || e.readers > 0 {
			e.violations++
		}
		return
	}
	e.readers++
	e.maxReaders = max(e.maxReaders, e.readers)
	if e.writers > 0 {
		e.violations++
	}
}

// downgrade turns a writer into a reader, as the downgrade does once the
// read lock is held at the writer's place.
func (e *exclusion) downgrade() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.writers--
	e.readers++
	e.maxReaders = max(e.maxReaders, e.readers)
}

func (e *exclusion) leave(write bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.served++
	if write {
		e.writers--
	} else {
		e.readers--
	}
}

// contend runs total acquisitions spread over the given locks, one
// goroutine per lock; each is a write with probability writes, and holds
// for a random time in [minHold, maxHold).
//
// A writer downgrades with probability downgrades: it takes the read lock,
// releases the write lock, and holds the read lock as long again.
func contend(t *testing.T, locks []*rwlock.ReadWriteLock, total int, writes, downgrades float64, minHold, maxHold time.Duration) *exclusion {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var e exclusion
	var left atomic.Int64
	left.Store(int64(total))
	var failures atomic.Int64
	var wg sync.WaitGroup
	for i, rw := range locks {
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				write := rng.Float64() < writes
				l := rw.ReadLock()
				if write {
					l = rw.WriteLock()
				}
				h, err := l.Acquire(ctx)
				if !assert.NoError(t, err) {
					failures.Add(1)
					return
				}
				e.enter(write)
				time.Sleep(minHold + time.Duration(rng.Int64N(int64(maxHold-minHold))))
				if write && rng.Float64() < downgrades {
					r, err := rw.ReadLock().Acquire(ctx)
					if !assert.NoError(t, err) {
						failures.Add(1)
						return
					}
					e.downgrade()
					if !assert.NoError(t, h.Release(ctx)) {
						failures.Add(1)
						return
					}
					h, write = r, false
					time.Sleep(minHold + time.Duration(rng.Int64N(int64(maxHold-minHold))))
				}
				e.leave(write)
				if !assert.NoError(t, h.Release(ctx)) {
					failures.Add(1)
					return
				}
			}
		})
	}
	wg.Wait()
	require.Zero(t, failures.Load(), "every acquire and release succeeds")
	return &e
}

// 8 clients, one in ten acquisitions a write, 800 acquisitions each held
// 1 to 9 ms: writers always alone, readers together at times, and every
// acquire succeeds.
func TestLoad_EightClientsTenPercentWriters(t *testing.T) {
	t.Parallel()
	servers := zktest.Servers(t)
	path := zktest.UniquePath(t)
	var locks []*rwlock.ReadWriteLock
	for range 8 {
		locks = append(locks, newRW(t, connect(t, servers), path))
	}
	e := contend(t, locks, 800, 0.1, 0, time.Millisecond, 9*time.Millisecond)
	assert.Zero(t, e.violations, "a writer was not alone")
	assert.Equal(t, 800, e.served)
	assert.Greater(t, e.maxReaders, 1, "readers held together at some point")
	t.Logf("most readers at once: %d", e.maxReaders)
	assert.Empty(t, children(t, connect(t, servers), path))
}

// Readers and writers arrive interleaved, half of them writers, several
// per client: no wait cycle forms (Kazoo 2.8 deadlocks here, its issue
// 649: a reader and a writer each watching the other), so every acquire
// completes.
func TestLoad_InterleavedReadersAndWritersNeverDeadlock(t *testing.T) {
	t.Parallel()
	servers := zktest.Servers(t)
	path := zktest.UniquePath(t)
	var locks []*rwlock.ReadWriteLock
	for range 4 {
		rw := newRW(t, connect(t, servers), path)
		for range 4 { // goroutines sharing a client and a lock: other owners
			locks = append(locks, rw)
		}
	}
	e := contend(t, locks, 600, 0.5, 0, 0, time.Millisecond)
	assert.Zero(t, e.violations, "a writer was not alone")
	assert.Equal(t, 600, e.served)
	assert.Empty(t, children(t, connect(t, servers), path))
}

// Writers downgrade half of the time while readers and writers contend:
// no writer ever gets in beside a downgraded reader.
func TestLoad_DowngradesKeepWritersOut(t *testing.T) {
	servers := zktest.Servers(t)
	path := zktest.UniquePath(t)
	var locks []*rwlock.ReadWriteLock
	for range 6 {
		locks = append(locks, newRW(t, connect(t, servers), path))
	}
	e := contend(t, locks, 400, 0.5, 0.5, 0, 2*time.Millisecond)
	assert.Zero(t, e.violations, "a writer was not alone")
	assert.Equal(t, 400, e.served)
	assert.Empty(t, children(t, connect(t, servers), path))
}
