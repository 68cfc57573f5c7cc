package mutex_test

import (
	"context"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// A contended acquisition with eight clients costs two and a half
// requests at most through the directory's persistent watch (ZooKeeper
// 3.6+): the create and the delete (the floor, two: the watch's view of
// the queue saves the listing), plus each client's addWatch and first
// listing when it first waits, spread over its acquisitions. With
// one-shot watches (an older server) it costs at most seven: the create
// and the listing behind it, the watches of the waiter's own node and of
// the two nodes in front of it, one more look when the farther of them
// goes (before the waiter's turn, so that its hand-off needs no read),
// and the delete. The count is taken once every client has queued, so
// that it is the steady state of a long queue; it must not grow with it.
func TestContention_AcquisitionCostsTheCreateAndTheDelete(t *testing.T) {
	bounds := map[bool]float64{false: 2.5, true: 7}
	for _, wp := range waitPaths {
		t.Run(wp.name, func(t *testing.T) {
			c := contend(t, 8, 400, wp.old)
			for _, op := range slices.Sorted(maps.Keys(c.requests)) {
				t.Logf("request type %d: %.2f per acquisition", op, c.requests[op])
			}
			t.Logf("notifications: %.2f per acquisition", c.notifications)
			assert.LessOrEqual(t, c.total(), bounds[wp.old], "requests per contended acquisition")
		})
	}
}

// A Mutex made for each acquisition, as a leader latch is for each term,
// follows the directory watch that the client's Mutexes of the path share,
// and its view of the queue: it too queues with a create alone.
func TestContention_AMutexPerAcquisitionSharesTheView(t *testing.T) {
	c := contendFresh(t, 8, 400)
	for _, op := range slices.Sorted(maps.Keys(c.requests)) {
		t.Logf("request type %d: %.2f per acquisition", op, c.requests[op])
	}
	assert.LessOrEqual(t, c.total(), 2.5, "requests per contended acquisition")
}

// contention is what a run of contend measured, per acquisition.
type contention struct {
	requests      map[int32]float64 // by request type
	notifications float64
	perSecond     float64 // acquisitions
}

func (c contention) total() float64 {
	var sum float64
	for _, n := range c.requests {
		sum += n
	}
	return sum
}

// contend has clients clients, each its own connection through one proxy
// (an old server's if old), take one lock in turn until total
// acquisitions are done, and returns what they cost. Every client
// acquires once first, alone, so that the count starts with the directory
// in place.
func contend(t *testing.T, clients int, total int64, old bool) contention {
	return contendWith(t, clients, total, old, false)
}

// contendFresh is contend on a new server, with a new Mutex for every
// acquisition.
func contendFresh(t *testing.T, clients int, total int64) contention {
	return contendWith(t, clients, total, false, true)
}

func contendWith(t *testing.T, clients int, total int64, old, fresh bool) contention {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	if old {
		makeOld(proxy)
	}
	path := zktest.UniquePath(t)
	ctx := testContext(t)
	locks := make([]func() *mutex.Mutex, clients)
	for i := range locks {
		c := connect(t, proxy.Addr())
		m := newMutex(t, c, path)
		locks[i] = func() *mutex.Mutex { return m }
		if fresh {
			locks[i] = func() *mutex.Mutex { return newMutex(t, c, path) }
		}
		h, err := m.Acquire(ctx) // creates the directory, once
		require.NoError(t, err)
		require.NoError(t, h.Release(ctx))
	}
	before, notified := proxy.RequestsSent(), proxy.Notifications()
	start := time.Now()
	var done atomic.Int64
	var wg sync.WaitGroup
	for _, lock := range locks {
		wg.Go(func() { takeInTurn(t, ctx, lock, &done, total) })
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

// takeInTurn acquires and releases the Mutex lock returns until total
// acquisitions are counted in done.
func takeInTurn(t *testing.T, ctx context.Context, lock func() *mutex.Mutex, done *atomic.Int64, total int64) {
	for done.Add(1) <= total {
		h, err := lock().Acquire(ctx)
		if !assert.NoError(t, err) {
			return
		}
		runtime.Gosched()
		if !assert.NoError(t, h.Release(ctx)) {
			return
		}
	}
}

// An uncontended acquire+release allocates no more than 1.2 times what
// go-zookeeper's zk.Lock does for the same three requests, both counted
// here, in one process, so that the server's answers cost both alike.
func TestMutex_AcquireReleaseAllocatesLittleMoreThanZkLock(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations over many round trips")
	}
	servers := zktest.Servers(t)
	ctx := context.Background()
	m := newMutex(t, connect(t, servers), zktest.UniquePath(t))
	conn, _, err := zk.Connect([]string{servers}, 10*time.Second, zk.WithLogInfo(false))
	require.NoError(t, err)
	defer conn.Close()
	l := zk.NewLock(conn, zktest.UniquePath(t), zk.WorldACL(zk.PermAll))

	ours := testing.AllocsPerRun(200, func() {
		h, err := m.Acquire(ctx)
		require.NoError(t, err)
		require.NoError(t, h.Release(ctx))
	})
	theirs := testing.AllocsPerRun(200, func() {
		require.NoError(t, l.Lock())
		require.NoError(t, l.Unlock())
	})
	t.Logf("allocations per acquire+release: %.0f, zk.Lock %.0f", ours, theirs)
	assert.LessOrEqual(t, ours, 1.2*theirs)
}
