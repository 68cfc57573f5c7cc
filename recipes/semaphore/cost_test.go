package semaphore_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// contention is what one acquisition cost, on average, in a run of
// clients that took a semaphore's leases in turn.
type contention struct {
	requests      map[int32]float64 // by request type, pings aside
	notifications float64
	perSecond     float64
}

func (c contention) total() float64 {
	var n float64
	for _, v := range c.requests {
		n += v
	}
	return n
}

func (c contention) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "requests %.2f (", c.total())
	for _, op := range slices.Sorted(maps.Keys(c.requests)) {
		fmt.Fprintf(&b, " op%d=%.2f", op, c.requests[op])
	}
	fmt.Fprintf(&b, " ) notifications %.2f, %.0f acquisitions/s", c.notifications, c.perSecond)
	return b.String()
}

// contend runs clients, each its own session through one proxy, that
// acquire and release a lease of a semaphore of maxLeases until total
// acquisitions are done, as the anchors' "semaphore" scenario does, and
// returns what an acquisition cost. Every client takes a lease once
// before the count starts, so the directories and each client's watches
// are set up as in a long run.
func contend(t *testing.T, clients, maxLeases int, total int64) contention {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	path := zktest.UniquePath(t)
	ctx := testContext(t)
	keepPersistent(t, path)
	sems := make([]*semaphore.Semaphore, clients)
	for i := range sems {
		sems[i] = newSemaphore(t, connect(t, proxy.Addr()), path, maxLeases)
		l, err := sems[i].Acquire(ctx)
		require.NoError(t, err)
		require.NoError(t, l.Release(ctx))
	}
	before, notified := proxy.RequestsSent(), proxy.Notifications()
	start := time.Now()
	var done atomic.Int64
	var wg sync.WaitGroup
	for _, s := range sems {
		wg.Go(func() { // ends when total acquisitions are done, or at the first failure
			for done.Add(1) <= total {
				l, err := s.Acquire(ctx)
				if !assert.NoError(t, err) {
					return
				}
				if !assert.NoError(t, l.Release(ctx)) {
					return
				}
			}
		})
	}
	wg.Wait()
	c := contention{requests: make(map[int32]float64), perSecond: float64(total) / time.Since(start).Seconds()}
	for op, n := range proxy.RequestsSent() {
		if d := n - before[op]; d > 0 {
			c.requests[op] = float64(d) / float64(total)
		}
	}
	c.notifications = float64(proxy.Notifications()-notified) / float64(total)
	return c
}

// keepPersistent makes a semaphore's directories persistent nodes, so
// that the server never reaps them while a test counts requests, and
// adds nothing to them.
func keepPersistent(t *testing.T, path string) {
	t.Helper()
	c := connect(t, zktest.Servers(t))
	for _, dir := range []string{path + "/locks", path + "/leases"} {
		_, err := c.Create(testContext(t), dir, nil, framework.Persistent, framework.WithParents())
		require.NoError(t, err)
	}
}

// With 16 clients, each its own session, taking turns on a semaphore of 3
// leases, an acquisition costs at most 5 requests (the guard's create and
// delete and the lease's transaction and delete, four, when the guard's
// waiters follow the locks directory's watch; eight on one-shot watches),
// and about two notifications to each waiting client.
func TestSemaphore_SixteenClientsCostFiveRequestsAnAcquisitionAtMost(t *testing.T) {
	const clients = 16
	c := contend(t, clients, 3, 500)
	t.Logf("%d clients: %s", clients, c)
	assert.LessOrEqual(t, c.total(), 5.0, "requests per acquisition")
	assert.LessOrEqual(t, c.notifications, 2.5*clients, "notifications per acquisition")
}

// Behind a queue longer than the guard follows through its directory's
// watch, the waiters keep to one-shot watches: no client is told of every
// create and delete of the long queue.
func TestSemaphore_ALongQueueTellsNotEveryClientOfEveryChange(t *testing.T) {
	if testing.Short() {
		t.Skip("32 sessions taking turns")
	}
	const clients = 32
	c := contend(t, clients, 3, 500)
	t.Logf("%d clients: %s", clients, c)
	assert.LessOrEqual(t, c.notifications, 8.0, "notifications per acquisition")
}
