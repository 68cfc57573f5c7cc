package queue_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

// BenchmarkQueue_OneProducerFourConsumers measures items per second from
// one producer (its own client, inflight puts at once) to four consumers
// (each its own client), from the first put to the last item taken, and
// the requests each item costs the producer and the consumers (counted at
// proxies, pings aside). Modes: no lock path (at most once), lock-safe (at
// least once), transactional with a lock path (an effect, a set of a node,
// exactly once).
func BenchmarkQueue_OneProducerFourConsumers(b *testing.B) {
	for _, mode := range []string{"at-most-once", "lock-safe", "transactional"} {
		for _, inflight := range []int{1, 32} {
			b.Run(fmt.Sprintf("%s/inflight=%d", mode, inflight), func(b *testing.B) {
				benchmarkOneToFour(b, mode, inflight)
			})
		}
	}
}

func benchmarkOneToFour(b *testing.B, mode string, inflight int) {
	servers := zktest.Servers(b)
	path := zktest.UniquePath(b)
	var opts []queue.Option
	if mode != "at-most-once" {
		opts = append(opts, queue.WithLockPath(path+"-locks"))
	}
	producerProxy, consumerProxy := zktest.NewProxy(b, servers), zktest.NewProxy(b, servers)
	producer := newQueue(b, connect(b, producerProxy.Addr()), path, opts...)
	ctx := context.Background()
	if err := producer.Put(ctx, "warm"); err != nil { // directories and marker
		b.Fatal(err)
	}
	effect := path + "-effect"
	if _, err := connect(b, servers).Create(ctx, effect, nil, framework.Persistent, framework.WithParents()); err != nil {
		b.Fatal(err)
	}
	var taken atomic.Int64
	all := make(chan struct{})
	want := int64(b.N) + 1
	count := func() {
		if taken.Add(1) == want {
			close(all)
		}
	}
	b.ResetTimer()
	sentBefore := producerProxy.Sent()
	consumersBefore := consumerProxy.Sent()
	began := time.Now()
	for range 4 {
		q := newQueue(b, connect(b, consumerProxy.Addr()), path, opts...)
		var cn *queue.Consumer[string]
		var err error
		if mode == "transactional" {
			cn, err = q.NewTxConsumer(func(context.Context, string) ([]framework.Op, error) {
				count()
				return []framework.Op{framework.SetOp(effect, nil, -1)}, nil
			})
		} else {
			cn, err = q.NewConsumer(func(context.Context, string) error { count(); return nil })
		}
		if err != nil {
			b.Fatal(err)
		}
		start(b, cn)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range inflight {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				if err := producer.Put(ctx, "item"); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-all:
	case <-time.After(5 * time.Minute):
		b.Fatalf("taken %d of %d", taken.Load(), want)
	}
	elapsed := time.Since(began)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "items/s")
	b.ReportMetric(float64(producerProxy.Sent()-sentBefore)/float64(b.N), "put-requests/item")
	b.ReportMetric(float64(consumerProxy.Sent()-consumersBefore)/float64(b.N), "take-requests/item")
}
