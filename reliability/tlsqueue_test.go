package reliability_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// A lock-safe consumer over TLS, behind a proxy, takes the items put
// before and during each kind of fault once the fault is over: a cut, a
// pause the session outlives, and a pause, a one-way partition of the
// requests and one of the replies that each end the session. It never
// stops following the queue.
func TestTLS_AQueueConsumerTakesWhatIsPutDuringEveryKindOfFault(t *testing.T) {
	t.Parallel()
	s := zktest.NewServer(t, zktesting.WithTLS())
	proxy := zktest.NewProxy(t, s.TLSAddr())
	c := tlsClient(t, s, proxy.Addr(), "consumer", framework.WithSessionTimeout(tlsSession))
	states := make(chan framework.StateChange, 100)
	c.AddListener(func(sc framework.StateChange) { states <- sc })
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	taken := startTLSConsumer(ctx, t, c, path)
	producer, err := queue.New(tlsClient(t, s, s.TLSAddr(), "producer"), path+"/q", queue.StringCodec{}, queue.WithLockPath(path+"/locks"))
	require.NoError(t, err)

	suspended := func() {
		for nextState(t, states).State != framework.Suspended {
		}
	}
	lost := func() { zktest.WaitClosed(t, c.Session().Lost(), 30*time.Second, "the session's end") }
	for _, f := range []struct {
		name  string
		start func()
		wait  func()
		end   func()
	}{
		{"cut", proxy.Cut, func() {}, func() {}},
		{"pause", proxy.Pause, suspended, proxy.Resume},
		{"expiry", proxy.Pause, lost, proxy.Resume},
		{"one-way requests", proxy.PauseRequests, lost, proxy.Resume},
		{"one-way replies", proxy.PauseReplies, lost, proxy.Resume},
	} {
		f.start()
		require.NoError(t, producer.Put(ctx, f.name+" before"))
		f.wait()
		require.NoError(t, producer.Put(ctx, f.name+" during"))
		f.end()
		assert.Eventually(t, func() bool { return taken(f.name+" before") && taken(f.name+" during") },
			30*time.Second, 20*time.Millisecond, "after the %s, both items are taken", f.name)
	}
}

// startTLSConsumer starts a lock-safe consumer of the queue under path on
// c, and returns whether it has taken an item.
func startTLSConsumer(ctx context.Context, t *testing.T, c *framework.Client, path string) func(item string) bool {
	q, err := queue.New(c, path+"/q", queue.StringCodec{}, queue.WithLockPath(path+"/locks"))
	require.NoError(t, err)
	var mu sync.Mutex
	taken := map[string]bool{}
	cn, err := q.NewConsumer(func(_ context.Context, item string) error {
		mu.Lock()
		defer mu.Unlock()
		taken[item] = true
		return nil
	})
	require.NoError(t, err)
	require.NoError(t, cn.Start(ctx))
	t.Cleanup(func() { _ = cn.Close(context.Background()) })
	return func(item string) bool {
		mu.Lock()
		defer mu.Unlock()
		return taken[item]
	}
}
