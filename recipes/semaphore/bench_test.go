package semaphore_test

import (
	"context"
	"sync"
	"testing"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// BenchmarkSemaphore_Uncontended measures one acquire+release with nobody
// else on the semaphore, and the ZooKeeper requests it costs.
func BenchmarkSemaphore_Uncontended(b *testing.B) {
	servers := zktest.Servers(b)
	s := newSemaphore(b, connect(b, servers), zktest.UniquePath(b), 3)
	ctx := context.Background()
	warm, err := s.Acquire(ctx) // the first acquire creates the directories
	if err != nil {
		b.Fatal(err)
	}
	if err := warm.Release(ctx); err != nil {
		b.Fatal(err)
	}
	before := zktest.PacketsReceived(b, servers)
	b.ResetTimer()
	for b.Loop() {
		l, err := s.Acquire(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	requests := zktest.PacketsReceived(b, servers) - before - 1 // minus the mntr itself
	b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
}

// BenchmarkSemaphore_16Clients3Leases measures acquire+release with 16
// clients, each its own session, on a semaphore of 3 leases, as the
// anchors' "semaphore" scenario does. An op is one acquisition. It
// reports the requests and the watch notifications each costs the server:
// the counts, unlike the time, do not depend on what else the machine runs.
func BenchmarkSemaphore_16Clients3Leases(b *testing.B) { benchContended(b, 16, 3) }

// BenchmarkSemaphore_8Clients3Leases is BenchmarkSemaphore_16Clients3Leases
// with 8 clients.
func BenchmarkSemaphore_8Clients3Leases(b *testing.B) { benchContended(b, 8, 3) }

func benchContended(b *testing.B, clients, maxLeases int) {
	servers := zktest.Servers(b)
	path := zktest.UniquePath(b)
	sems := make([]*semaphore.Semaphore, clients)
	for i := range sems {
		sems[i] = newSemaphore(b, connect(b, servers), path, maxLeases)
	}
	ctx := context.Background()
	work := make(chan struct{})
	var wg sync.WaitGroup
	for _, s := range sems {
		wg.Go(func() { // ends when work is closed, or at the first failure
			for range work {
				l, err := s.Acquire(ctx)
				if err != nil {
					b.Error(err)
					return
				}
				if err := l.Release(ctx); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	received, sent := zktest.ServerPackets(b, servers)
	b.ResetTimer()
	for b.Loop() {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	b.StopTimer()
	received2, sent2 := zktest.ServerPackets(b, servers)
	requests := received2 - received - 1 // minus the mntr itself
	b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
	b.ReportMetric(float64(sent2-sent-requests)/float64(b.N), "notifications/op")
}
