package rwlock_test

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
)

// BenchmarkRWLock_Contended is the anchor scenario "rwlock": eight
// clients, each its own session, client i a writer when i%4 == 0 and a
// reader otherwise, each taking and releasing its lock in a loop. It
// reports the requests per acquisition and fails on a violation.
func BenchmarkRWLock_Contended(b *testing.B) {
	servers := zktest.Servers(b)
	path := zktest.UniquePath(b)
	const clients = 8
	locks := make([]*rwlock.Lock, clients)
	for i := range locks {
		rw := newRW(b, connect(b, servers), path)
		locks[i] = rw.ReadLock()
		if i%4 == 0 {
			locks[i] = rw.WriteLock()
		}
	}
	ctx := context.Background()
	var (
		next                atomic.Int64
		mu                  sync.Mutex
		readers, writers    int
		violations, written atomic.Int64
	)
	enter := func(write bool) {
		mu.Lock()
		defer mu.Unlock()
		if write {
			writers++
			written.Add(1)
			if writers != 1 || readers != 0 {
				violations.Add(1)
			}
			return
		}
		readers++
		if writers != 0 {
			violations.Add(1)
		}
	}
	leave := func(write bool) {
		mu.Lock()
		defer mu.Unlock()
		if write {
			writers--
		} else {
			readers--
		}
	}
	before := zktest.PacketsReceived(b, servers)
	b.ResetTimer()
	var wg sync.WaitGroup
	for i, l := range locks {
		write := i%4 == 0
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				h, err := l.Acquire(ctx)
				if err != nil {
					b.Error(err)
					return
				}
				enter(write)
				runtime.Gosched()
				leave(write)
				if err := h.Release(ctx); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	requests := zktest.PacketsReceived(b, servers) - before - 1
	b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
	b.ReportMetric(float64(written.Load())/float64(b.N), "writes/op")
	if v := violations.Load(); v > 0 {
		b.Fatalf("%d violations: a writer was not alone", v)
	}
}
