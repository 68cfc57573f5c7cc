package atomicvalue_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
)

// BenchmarkIncrement measures an increment contended by 8 clients, each on
// its own connection, all on one Long; it reports the requests each
// successful increment cost, the optimistic tries it took, and the share
// of increments that did not succeed within the default retry policy.
func BenchmarkIncrement(b *testing.B) {
	const clients = 8
	servers := zktest.Servers(b)
	path := zktest.UniquePath(b)
	ctx := context.Background()
	longs := make([]*atomicvalue.Long, clients)
	proxies := make([]*zktest.Proxy, clients)
	for i := range clients {
		proxies[i] = zktest.NewProxy(b, servers)
		longs[i] = newLong(b, connect(b, proxies[i].Addr()), path)
	}
	if _, err := longs[0].Increment(ctx); err != nil { // the first one creates the node
		b.Fatal(err)
	}
	sent := func() (n int64) {
		for _, p := range proxies {
			n += p.Sent()
		}
		return n
	}
	var (
		next                     atomic.Int64
		succeeded, failed, tries atomic.Int64
		wg                       sync.WaitGroup
		errOnce                  sync.Once
		firstErr                 error
	)
	before := sent()
	b.ResetTimer()
	for _, l := range longs {
		wg.Add(1)
		go func() { // ends when b.N increments have been made between the clients
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				r, err := l.Increment(ctx)
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
				tries.Add(int64(r.Stats.OptimisticTries))
				if r.Succeeded {
					succeeded.Add(1)
				} else {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	if succeeded.Load() > 0 {
		b.ReportMetric(float64(sent()-before)/float64(succeeded.Load()), "requests/increment")
	}
	b.ReportMetric(float64(tries.Load())/float64(b.N), "tries/op")
	b.ReportMetric(float64(failed.Load())/float64(b.N), "failed/op")
}
