package queue_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

// Go puts, Curator's lock-safe consumer takes every item once, in order,
// PutMulti's node included; then Curator puts and Go's takes them.
func TestCurator_QueueItemsCrossBothWaysExactlyOnceInLockSafeMode(t *testing.T) {
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	locks := path + "-locks"
	q := newQueue(t, c, path, queue.WithLockPath(locks))

	var fromGo []string
	for i := range 10 {
		fromGo = append(fromGo, fmt.Sprintf("go-%02d", i))
		require.NoError(t, q.Put(ctx, fromGo[i]))
	}
	require.NoError(t, q.PutMulti(ctx, []string{"go-multi-1", "go-multi-2"}))
	fromGo = append(fromGo, "go-multi-1", "go-multi-2")
	require.NoError(t, cur.QueueConsume(ctx, "java", zktest.CuratorQueue, path, locks, false))
	taken, err := cur.QueueTaken(ctx, "java", len(fromGo), 20*time.Second)
	require.NoError(t, err)
	assert.Equal(t, fromGo, taken, "Curator takes Go's items once each, in order")
	require.NoError(t, cur.QueueClose(ctx, "java"))
	assert.Eventually(t, func() bool { return len(items(t, c, path)) == 0 }, 10*time.Second, 10*time.Millisecond)

	var fromJava []string
	for i := range 10 {
		fromJava = append(fromJava, fmt.Sprintf("java-%02d", i))
		require.NoError(t, cur.QueuePut(ctx, zktest.CuratorQueue, path, locks, "", fromJava[i]))
	}
	require.NoError(t, cur.QueuePut(ctx, zktest.CuratorQueue, path, locks, "", "java-multi-1", "java-multi-2"))
	fromJava = append(fromJava, "java-multi-1", "java-multi-2")
	r := &recorder{}
	cn, err := q.NewConsumer(r.consume)
	require.NoError(t, err)
	start(t, cn)
	assert.Equal(t, fromJava, r.waitFor(t, len(fromJava)), "Go takes Curator's items once each, in order")
	assert.Eventually(t, func() bool { return len(items(t, c, path)) == 0 }, 10*time.Second, 10*time.Millisecond)
}

// A Go consumer and a Curator consumer on one queue with one lock path
// share its items: each item is taken by exactly one of them.
func TestCurator_GoAndCuratorConsumersShareAQueueWithoutDuplicates(t *testing.T) {
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	locks := path + "-locks"
	q := newQueue(t, c, path, queue.WithLockPath(locks))
	require.NoError(t, cur.QueueConsume(ctx, "java", zktest.CuratorQueue, path, locks, false))
	r := &recorder{}
	cn, err := q.NewConsumer(r.consume)
	require.NoError(t, err)
	start(t, cn)

	const n = 200
	for i := range n {
		require.NoError(t, q.Put(ctx, fmt.Sprintf("item-%03d", i)))
	}
	var java []string
	require.Eventually(t, func() bool {
		var err error
		java, err = cur.QueueTaken(ctx, "java", 0, 0)
		return err == nil && len(java)+len(r.got()) >= n
	}, 30*time.Second, 20*time.Millisecond)
	seen := make(map[string]int)
	for _, it := range append(java, r.got()...) {
		seen[it]++
	}
	assert.Len(t, seen, n, "every item taken")
	for it, k := range seen {
		assert.Equal(t, 1, k, "%s taken %d times", it, k)
	}
	t.Logf("Curator took %d, Go %d", len(java), len(r.got()))
	require.NoError(t, cur.QueueClose(ctx, "java"))
}

// Priority and delay: Curator's consumers take Go's items in priority
// order and after their time, and Go's take Curator's so.
func TestCurator_PriorityAndDelayItemsCrossBothWaysInOrder(t *testing.T) {
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	c := connect(t, servers)
	ctx := testContext(t)
	prios := []int{5, -3, 0, 2147483647, -2147483648, 5, 1, -1}
	want := []string{"p-2147483648", "p-3", "p-1", "p0", "p1", "p5a", "p5b", "p2147483647"}
	name := func(p int, seen map[int]bool) string {
		s := fmt.Sprintf("p%d", p)
		if p < 0 {
			s = fmt.Sprintf("p-%d", -p)
		}
		if p == 5 {
			s += map[bool]string{false: "a", true: "b"}[seen[5]]
			seen[5] = true
		}
		return s
	}

	t.Run("priority, Go to Curator", func(t *testing.T) {
		path := zktest.UniquePath(t)
		pq, err := queue.NewPriorityQueue(c, path, queue.StringCodec{}, queue.WithLockPath(path+"-locks"))
		require.NoError(t, err)
		seen := map[int]bool{}
		for _, p := range prios {
			require.NoError(t, pq.Put(ctx, name(p, seen), p))
		}
		require.NoError(t, cur.QueueConsume(ctx, "jp", zktest.CuratorPriorityQueue, path, path+"-locks", false))
		taken, err := cur.QueueTaken(ctx, "jp", len(want), 20*time.Second)
		require.NoError(t, err)
		assert.Equal(t, want, taken)
		require.NoError(t, cur.QueueClose(ctx, "jp"))
	})
	t.Run("priority, Curator to Go", func(t *testing.T) {
		path := zktest.UniquePath(t)
		seen := map[int]bool{}
		for _, p := range prios {
			require.NoError(t, cur.QueuePut(ctx, zktest.CuratorPriorityQueue, path, path+"-locks", fmt.Sprint(p), name(p, seen)))
		}
		pq, err := queue.NewPriorityQueue(c, path, queue.StringCodec{}, queue.WithLockPath(path+"-locks"))
		require.NoError(t, err)
		r := &recorder{}
		cn, err := pq.NewConsumer(r.consume)
		require.NoError(t, err)
		start(t, cn)
		assert.Equal(t, want, r.waitFor(t, len(want)))
	})
	t.Run("delay, both ways", func(t *testing.T) {
		path := zktest.UniquePath(t)
		locks := path + "-locks"
		dq, err := queue.NewDelayQueue(c, path, queue.StringCodec{}, queue.WithLockPath(locks))
		require.NoError(t, err)
		now := time.Now()
		later, soon := now.Add(1500*time.Millisecond), now.Add(700*time.Millisecond)
		require.NoError(t, dq.Put(ctx, "go-later", later))
		require.NoError(t, cur.QueuePut(ctx, zktest.CuratorDelayQueue, path, locks, fmt.Sprint(soon.UnixMilli()), "java-soon"))
		require.NoError(t, dq.Put(ctx, "go-past", now.Add(-time.Hour)))
		require.NoError(t, cur.QueueConsume(ctx, "jd", zktest.CuratorDelayQueue, path, locks, false))
		taken, err := cur.QueueTaken(ctx, "jd", 3, 20*time.Second)
		require.NoError(t, err)
		assert.Equal(t, []string{"go-past", "java-soon", "go-later"}, taken)
		assert.False(t, time.Now().Before(later), "Curator took Go's item no sooner than its time")
		require.NoError(t, cur.QueueClose(ctx, "jd"))

		start2 := time.Now()
		due := start2.Add(time.Second)
		require.NoError(t, cur.QueuePut(ctx, zktest.CuratorDelayQueue, path, locks, fmt.Sprint(due.UnixMilli()), "java-due"))
		r := &recorder{}
		var at time.Time
		cn, err := dq.NewConsumer(func(ctx context.Context, item string) error {
			at = time.Now()
			return r.consume(ctx, item)
		})
		require.NoError(t, err)
		start(t, cn)
		assert.Equal(t, []string{"java-due"}, r.waitFor(t, 1))
		assert.False(t, at.Before(due), "Go took Curator's item no sooner than its time")
	})
}

// An id queue's items carry their id both ways: Curator removes Go's by id
// and Go removes Curator's, and the rest are taken.
func TestCurator_IDQueueRemovesByIDBothWays(t *testing.T) {
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	locks := path + "-locks"
	iq, err := queue.NewIDQueue(c, path, queue.StringCodec{}, queue.WithLockPath(locks))
	require.NoError(t, err)
	require.NoError(t, iq.Put(ctx, "go-a", "a"))
	require.NoError(t, iq.Put(ctx, "go-b", "b"))
	require.NoError(t, cur.QueuePut(ctx, zktest.CuratorIDQueue, path, locks, "a", "java-a"))
	require.NoError(t, cur.QueuePut(ctx, zktest.CuratorIDQueue, path, locks, "c", "java-c"))
	n, err := cur.QueueRemove(ctx, path, locks, "b")
	require.NoError(t, err)
	assert.Equal(t, 1, n, "Curator removes Go's item by its id")
	n, err = iq.Remove(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, 2, n, "Go removes Go's and Curator's items of id a")
	require.NoError(t, cur.QueueConsume(ctx, "ji", zktest.CuratorIDQueue, path, locks, false))
	taken, err := cur.QueueTaken(ctx, "ji", 1, 20*time.Second)
	require.NoError(t, err)
	assert.Equal(t, []string{"java-c"}, taken)
	require.NoError(t, cur.QueueClose(ctx, "ji"))
}

// A Go consumer leaves alone the item whose lock a Curator consumer holds,
// and a Curator consumer the one a Go consumer holds: each item is taken by
// one of them, once.
func TestCurator_ConsumersHonourEachOthersLocks(t *testing.T) {
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	locks := path + "-locks"
	q := newQueue(t, c, path, queue.WithLockPath(locks))

	require.NoError(t, q.Put(ctx, "java-holds"))
	require.NoError(t, cur.QueueConsume(ctx, "java", zktest.CuratorQueue, path, locks, true))
	taken, err := cur.QueueTaken(ctx, "java", 1, 20*time.Second)
	require.NoError(t, err)
	require.Equal(t, []string{"java-holds"}, taken)
	require.Len(t, children(t, c, locks), 2, "Curator's lock node, and the producer's marker")

	g := newGate()
	cn, err := q.NewConsumer(g.consume)
	require.NoError(t, err)
	start(t, cn)
	require.NoError(t, q.Put(ctx, "go-holds"))
	assert.Equal(t, "go-holds", g.next(t), "Go passes the item Curator holds")
	require.NoError(t, q.Put(ctx, "third"))
	require.NoError(t, cur.QueueRelease(ctx, "java", 2))
	taken, err = cur.QueueTaken(ctx, "java", 2, 20*time.Second)
	require.NoError(t, err)
	assert.Equal(t, []string{"java-holds", "third"}, taken, "Curator passes the item Go holds")
	close(g.release)
	assert.Eventually(t, func() bool { return len(items(t, c, path)) == 0 }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, []string{"go-holds"}, g.got())
	require.NoError(t, cur.QueueClose(ctx, "java"))
}

// A transactional consumer with the lock path locks as the lock-safe mode
// does, as the package promises: Curator's lock-safe consumer leaves alone
// the item whose operations Go is still making, and the item's effect and
// delete are applied once, by Go.
func TestCurator_LockSafeConsumerLeavesATransactionalConsumersItemAlone(t *testing.T) {
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	locks := path + "-locks"
	effects := path + "-effects"
	require.NoError(t, c.EnsurePath(ctx, effects))
	q := newQueue(t, c, path, queue.WithLockPath(locks))

	called := make(chan string, 1)
	release := make(chan struct{})
	cn, err := q.NewTxConsumer(func(ctx context.Context, item string) ([]framework.Op, error) {
		called <- item
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return []framework.Op{framework.CreateOp(effects+"/"+item, nil, framework.Persistent)}, nil
	})
	require.NoError(t, err)
	start(t, cn)
	require.NoError(t, q.Put(ctx, "go-holds"))
	select {
	case <-called:
	case <-time.After(20 * time.Second):
		t.Fatal("the transactional function was not called")
	}
	require.NoError(t, cur.QueueConsume(ctx, "java", zktest.CuratorQueue, path, locks, false))
	require.NoError(t, cur.QueuePut(ctx, zktest.CuratorQueue, path, locks, "", "java-takes"))
	taken, err := cur.QueueTaken(ctx, "java", 1, 20*time.Second)
	require.NoError(t, err)
	assert.Equal(t, []string{"java-takes"}, taken, "Curator takes the item put after, not the one Go holds")

	close(release)
	assert.Eventually(t, func() bool { return len(items(t, c, path)) == 0 }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, []string{"go-holds"}, children(t, c, effects), "Go's effect, once")
	taken, err = cur.QueueTaken(ctx, "java", 1, time.Second)
	require.NoError(t, err)
	assert.Equal(t, []string{"java-takes"}, taken, "Curator took nothing more")
	require.NoError(t, cur.QueueClose(ctx, "java"))
}

// Go's puts whose answers are lost reach Curator's consumer once each, in
// order; Curator's lock-safe consumer and a Go one whose closing answers
// are lost share the rest without a duplicate.
func TestCurator_LostAnswersMakeNoDuplicates(t *testing.T) {
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	proxy, c := proxied(t)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	locks := path + "-locks"
	q := newQueue(t, c, path, queue.WithLockPath(locks))
	var want []string
	for i := range 20 {
		if i%5 == 1 {
			proxy.DropNextReply(zktest.OpMulti)
		}
		want = append(want, fmt.Sprintf("go-%02d", i))
		require.NoError(t, q.Put(ctx, want[i]))
	}
	assert.Equal(t, 4, proxy.DroppedRepliesOf(zktest.OpMulti))
	require.NoError(t, cur.QueueConsume(ctx, "java", zktest.CuratorQueue, path, locks, false))
	taken, err := cur.QueueTaken(ctx, "java", len(want), 20*time.Second)
	require.NoError(t, err)
	assert.Equal(t, want, taken)

	r := &recorder{}
	cn, err := q.NewConsumer(r.consume)
	require.NoError(t, err)
	start(t, cn)
	for i := range 3 {
		proxy.DropNextReply(zktest.OpMulti) // the Go consumer's closing transactions, or puts
		require.NoError(t, cur.QueuePut(ctx, zktest.CuratorQueue, path, locks, "", fmt.Sprintf("java-%d", i)))
	}
	require.Eventually(t, func() bool {
		java, err := cur.QueueTaken(ctx, "java", 0, 0)
		return err == nil && len(java)-len(want)+len(r.got()) >= 3
	}, 20*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool { return len(items(t, c, path)) == 0 }, 10*time.Second, 10*time.Millisecond)
	java, err := cur.QueueTaken(ctx, "java", 0, 0)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"java-0", "java-1", "java-2"}, append(java[len(want):], r.got()...), "each once")
	require.NoError(t, cur.QueueClose(ctx, "java"))
}
