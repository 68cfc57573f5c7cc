package mutex_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// manyHolds is how many locks the idle-hold benchmarks hold at once.
const manyHolds = 10_000

// BenchmarkMutex_IdleHolds holds manyHolds different mutexes at once on
// one client and reports what each idle hold costs, its lock included:
// bytes of heap and stack, and goroutines.
func BenchmarkMutex_IdleHolds(b *testing.B) {
	servers := zktest.Servers(b)
	c := connect(b, servers)
	base := zktest.UniquePath(b)
	ctx := context.Background()
	for b.Loop() {
		before := idleCost()
		locks := make([]*mutex.Mutex, manyHolds)
		for i := range locks {
			locks[i] = newMutex(b, c, fmt.Sprintf("%s/%d", base, i))
		}
		holds := make([]*mutex.Hold, manyHolds)
		inParallel(manyHolds, func(i int) error {
			var err error
			holds[i], err = locks[i].Acquire(ctx)
			return err
		}, b)
		after := idleCost()
		reportPerHold(b, before, after)
		inParallel(manyHolds, func(i int) error { return holds[i].Release(ctx) }, b)
	}
}

// BenchmarkGoZookeeperLock_IdleHolds is BenchmarkMutex_IdleHolds for
// go-zookeeper's zk.Lock, for comparison in the same run.
func BenchmarkGoZookeeperLock_IdleHolds(b *testing.B) {
	servers := zktest.Servers(b)
	conn, _, err := zk.Connect([]string{servers}, 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	base := zktest.UniquePath(b)
	for b.Loop() {
		before := idleCost()
		locks := make([]*zk.Lock, manyHolds)
		for i := range locks {
			locks[i] = zk.NewLock(conn, fmt.Sprintf("%s/%d", base, i), zk.WorldACL(zk.PermAll))
		}
		inParallel(manyHolds, func(i int) error { return locks[i].Lock() }, b)
		after := idleCost()
		reportPerHold(b, before, after)
		inParallel(manyHolds, func(i int) error { return locks[i].Unlock() }, b)
	}
}

// cost is what a process spends on memory and goroutines at one moment.
type cost struct {
	bytes      uint64 // heap in use and goroutine stacks
	goroutines int
}

// idleCost measures the process after a collection.
func idleCost() cost {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return cost{bytes: m.HeapInuse + m.StackInuse, goroutines: runtime.NumGoroutine()}
}

func reportPerHold(b *testing.B, before, after cost) {
	b.ReportMetric(float64(int64(after.bytes)-int64(before.bytes))/manyHolds, "B/hold")
	b.ReportMetric(float64(after.goroutines-before.goroutines)/manyHolds, "goroutines/hold")
}

// inParallel calls do for 0..n-1 on a few goroutines and fails b on the
// first error.
func inParallel(n int, do func(i int) error, b *testing.B) {
	const workers = 32
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				if err := do(i); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
}
