package mutex_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// BenchmarkMutex_Uncontended measures one acquire+release with nobody else
// on the lock, and the ZooKeeper requests it costs.
func BenchmarkMutex_Uncontended(b *testing.B) {
	benchmarkUncontended(b)
}

// BenchmarkMutex_UncontendedObserved is BenchmarkMutex_Uncontended on a
// client with an observer (framework.WithObserver) that counts what it
// hears: the cost of reporting, against the nil check alone above.
func BenchmarkMutex_UncontendedObserved(b *testing.B) {
	var o countingObserver
	benchmarkUncontended(b, framework.WithObserver(&o))
	if o.events.Load() == 0 {
		b.Fatal("the observer heard nothing")
	}
}

// countingObserver counts the events it hears.
type countingObserver struct {
	framework.NoopObserver
	events atomic.Int64
}

func (o *countingObserver) OnRequest(framework.RequestEvent) { o.events.Add(1) }
func (o *countingObserver) OnAcquire(framework.AcquireEvent) { o.events.Add(1) }
func (o *countingObserver) OnHoldEnd(framework.HoldEvent)    { o.events.Add(1) }

func benchmarkUncontended(b *testing.B, opts ...framework.Option) {
	servers := zktest.Servers(b)
	m := newMutex(b, connect(b, servers, opts...), zktest.UniquePath(b))
	ctx := context.Background()
	warm, err := m.Acquire(ctx) // the first acquire creates the directory
	if err != nil {
		b.Fatal(err)
	}
	if err := warm.Release(ctx); err != nil {
		b.Fatal(err)
	}
	before := zktest.PacketsReceived(b, servers)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		h, err := m.Acquire(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := h.Release(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	requests := zktest.PacketsReceived(b, servers) - before - 1 // minus the mntr itself
	b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
}

// BenchmarkMutex_QueueDrain measures the hand-off: K waiters, each its own
// session, queue behind a holder; the holder releases and each waiter takes
// and releases the lock in turn. The cost per hand-off must not grow with K.
func BenchmarkMutex_QueueDrain(b *testing.B) {
	for _, k := range []int{10, 200} {
		b.Run(fmt.Sprintf("waiters=%d", k), func(b *testing.B) {
			benchmarkQueueDrain(b, k)
		})
	}
}

func benchmarkQueueDrain(b *testing.B, k int) {
	servers := zktest.Servers(b)
	path := zktest.UniquePath(b)
	holderClient := connect(b, servers)
	holder := newMutex(b, holderClient, path)
	waiters := make([]*mutex.Mutex, k)
	for i := range waiters {
		waiters[i] = newMutex(b, connect(b, servers), path)
	}
	ctx := context.Background()
	var drain time.Duration
	for b.Loop() {
		h, err := holder.Acquire(ctx)
		if err != nil {
			b.Fatal(err)
		}
		var wg sync.WaitGroup
		for _, w := range waiters {
			wg.Go(func() {
				if h, err := w.Acquire(ctx); err == nil {
					_ = h.Release(ctx)
				}
			})
		}
		for len(children(b, holderClient, path)) < k+1 {
			time.Sleep(time.Millisecond)
		}
		start := time.Now()
		if err := h.Release(ctx); err != nil {
			b.Fatal(err)
		}
		wg.Wait()
		drain += time.Since(start)
	}
	b.ReportMetric(float64(drain.Microseconds())/float64(b.N*k), "µs/handoff")
}

// BenchmarkGoZookeeperLock_Uncontended is go-zookeeper's zk.Lock on the
// same server, for comparison in the same run.
func BenchmarkGoZookeeperLock_Uncontended(b *testing.B) {
	servers := zktest.Servers(b)
	conn, _, err := zk.Connect([]string{servers}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	l := zk.NewLock(conn, zktest.UniquePath(b), zk.WorldACL(zk.PermAll))
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Lock(); err != nil {
			b.Fatal(err)
		}
		if err := l.Unlock(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMutex_Contended measures acquisitions per second with eight
// clients, each its own session, taking the lock in turn.
func BenchmarkMutex_Contended(b *testing.B) {
	servers := zktest.Servers(b)
	path := zktest.UniquePath(b)
	const clients = 8
	locks := make([]*mutex.Mutex, clients)
	for i := range locks {
		locks[i] = newMutex(b, connect(b, servers), path)
	}
	ctx := context.Background()
	var next atomic.Int64
	before := zktest.PacketsReceived(b, servers)
	b.ResetTimer()
	var wg sync.WaitGroup
	for _, m := range locks {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				h, err := m.Acquire(ctx)
				if err != nil {
					b.Error(err)
					return
				}
				runtime.Gosched()
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
}

// BenchmarkGoZookeeperLock_Contended is go-zookeeper's zk.Lock with eight
// clients, for comparison with BenchmarkMutex_Contended in the same run.
func BenchmarkGoZookeeperLock_Contended(b *testing.B) {
	servers := zktest.Servers(b)
	path := zktest.UniquePath(b)
	const clients = 8
	locks := make([]*zk.Lock, clients)
	for i := range locks {
		conn, _, err := zk.Connect([]string{servers}, 10*time.Second, zk.WithLogInfo(false))
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		locks[i] = zk.NewLock(conn, path, zk.WorldACL(zk.PermAll))
	}
	var next atomic.Int64
	before := zktest.PacketsReceived(b, servers)
	b.ResetTimer()
	var wg sync.WaitGroup
	for _, l := range locks {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				if err := l.Lock(); err != nil {
					b.Error(err)
					return
				}
				runtime.Gosched()
				if err := l.Unlock(); err != nil {
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
}
