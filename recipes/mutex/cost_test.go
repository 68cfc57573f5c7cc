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

// requestsSent is how many requests of every type but pings clients have
// sent through proxy.
func requestsSent(proxy *zktest.Proxy) map[int32]int64 {
	const opPing = 11
	sent := make(map[int32]int64)
	for op := int32(-20); op < 128; op++ {
		if n := proxy.Requests(op); n > 0 && op != opPing {
			sent[op] = n
		}
	}
	return sent
}

// A contended acquisition with eight clients costs at most seven requests:
// the create and the listing behind it, the watches of the waiter's own
// node and of the two nodes in front of it, one more look when the farther
// of them goes (before the waiter's turn, so that its hand-off needs no
// read), and the delete. The count is taken once every client has queued,
// so that it is the steady state of a long queue; it must not grow with it.
func TestContention_AcquisitionCostsAtMostSevenRequests(t *testing.T) {
	const clients, total = 8, 400
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	path := zktest.UniquePath(t)
	ctx := testContext(t)
	locks := make([]*mutex.Mutex, clients)
	for i := range locks {
		locks[i] = newMutex(t, connect(t, proxy.Addr()), path)
		h, err := locks[i].Acquire(ctx) // creates the directory, once
		require.NoError(t, err)
		require.NoError(t, h.Release(ctx))
	}
	before := requestsSent(proxy)
	var done atomic.Int64
	var wg sync.WaitGroup
	for _, m := range locks {
		wg.Go(func() { takeInTurn(t, ctx, m, &done, total) })
	}
	wg.Wait()
	after := requestsSent(proxy)
	var sum int64
	for _, op := range slices.Sorted(maps.Keys(after)) {
		n := after[op] - before[op]
		t.Logf("request type %d: %.2f per acquisition", op, float64(n)/total)
		sum += n
	}
	assert.LessOrEqual(t, float64(sum)/total, 7.0, "requests per contended acquisition")
}

// takeInTurn acquires and releases m until total acquisitions are counted
// in done.
func takeInTurn(t *testing.T, ctx context.Context, m *mutex.Mutex, done *atomic.Int64, total int64) {
	for done.Add(1) <= total {
		h, err := m.Acquire(ctx)
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
