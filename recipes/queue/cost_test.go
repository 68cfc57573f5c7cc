package queue_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

// What an item costs, with one producer and one consumer: a put is one
// transaction; a take is a read and a delete (at most once), or a lock, a
// read and one transaction for item and lock (lock-safe); the consumer
// lists the queue once per batch, not once per item.
func TestConsumer_RequestsPerItem(t *testing.T) {
	for _, tc := range []struct {
		mode    string
		perItem int64
	}{{"at-most-once", 2}, {"lock-safe", 3}} {
		t.Run(tc.mode, func(t *testing.T) {
			servers := zktest.Servers(t)
			path := zktest.UniquePath(t)
			var opts []queue.Option
			if tc.mode == "lock-safe" {
				opts = append(opts, queue.WithLockPath(path+"-locks"))
			}
			producerProxy, consumerProxy := zktest.NewProxy(t, servers), zktest.NewProxy(t, servers)
			producer := newQueue(t, connect(t, producerProxy.Addr()), path, opts...)
			ctx := testContext(t)
			require.NoError(t, producer.Put(ctx, "warm")) // directories and marker
			before := producerProxy.Sent()
			const n = 50
			for i := range n {
				require.NoError(t, producer.Put(ctx, fmt.Sprint(i)))
			}
			assert.Equal(t, int64(n), producerProxy.Sent()-before, "one request per put")

			consumerClient := connect(t, consumerProxy.Addr())
			before = consumerProxy.Sent()
			r := &recorder{}
			cn, err := newQueue(t, consumerClient, path, opts...).NewConsumer(r.consume)
			require.NoError(t, err)
			start(t, cn)
			r.waitFor(t, n+1)
			require.Eventually(t, func() bool { return len(items(t, consumerClient, path)) == 0 }, 10*time.Second, 10*time.Millisecond)
			sent := consumerProxy.Sent() - before - 1 // the look above
			t.Logf("%d requests for %d items", sent, n+1)
			assert.LessOrEqual(t, sent, tc.perItem*(n+1)+3, "per item, and a listing per batch")
		})
	}
}

// Idle consumers do not herd: every consumer hears of each new item, but
// only one reaches for it, so the requests per item do not grow with the
// number of consumers waiting (on ZooKeeper 3.6+, where they follow the
// queue through a recursive watch rather than each listing it once per
// change).
func TestConsumer_IdleConsumersDoNotHerd(t *testing.T) {
	perItem := func(consumers int) float64 {
		servers := zktest.Servers(t)
		path := zktest.UniquePath(t)
		consumerProxy := zktest.NewProxy(t, servers)
		producer := newQueue(t, connect(t, servers), path)
		ctx := testContext(t)
		r := &recorder{}
		for range consumers {
			cn, err := newQueue(t, connect(t, consumerProxy.Addr()), path).NewConsumer(r.consume)
			require.NoError(t, err)
			start(t, cn)
		}
		// One item at a time, each taken before the next is put, so that
		// every consumer is idle when each comes.
		putOne := func(i int) {
			require.NoError(t, producer.Put(ctx, fmt.Sprint(i)))
			r.waitFor(t, i+1)
		}
		const warm, n = 150, 100 // the warm-up shares the items out
		for i := range warm {
			putOne(i)
		}
		before := consumerProxy.Sent()
		for i := range n {
			putOne(warm + i)
		}
		sent := consumerProxy.Sent() - before
		t.Logf("%d consumers: %d requests for %d items", consumers, sent, n)
		return float64(sent) / n
	}
	one, eight := perItem(1), perItem(8)
	assert.LessOrEqual(t, eight, one*1.25, "8 idle consumers: %.2f requests per item, 1: %.2f", eight, one)
}
