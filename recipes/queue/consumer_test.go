package queue_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

// gate is a consumer's function that holds each item until released.
type gate struct {
	recorder
	called  chan string
	release chan struct{}
}

func newGate() *gate { return &gate{called: make(chan string, 100), release: make(chan struct{})} }

func (g *gate) consume(ctx context.Context, item string) error {
	_ = g.recorder.consume(ctx, item)
	g.called <- item
	select {
	case <-g.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gate) next(t testing.TB) string {
	t.Helper()
	select {
	case item := <-g.called:
		return item
	case <-time.After(20 * time.Second):
		t.Fatal("the function was not called")
		return ""
	}
}

func exists(t testing.TB, c *framework.Client, path string) bool {
	t.Helper()
	ok, _, err := c.Exists(testContext(t), path)
	require.NoError(t, err)
	return ok
}

// In the lock-safe mode the item stays, under its consumer's lock, until
// the function has returned; another consumer leaves it alone meanwhile.
func TestConsumer_LockSafeItemIsDeletedOnlyAfterTheFunctionReturns(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	locks := path + "-locks"
	q := newQueue(t, c, path, queue.WithLockPath(locks))
	require.NoError(t, q.Put(ctx, "held"))
	node := path + "/" + items(t, c, path)[0]
	g := newGate()
	cn, err := q.NewConsumer(g.consume)
	require.NoError(t, err)
	start(t, cn)
	assert.Equal(t, "held", g.next(t))
	assert.True(t, exists(t, c, node), "the item stays while the function runs")
	assert.True(t, exists(t, c, locks+"/"+node[len(path)+1:]), "under its lock node")

	other := &recorder{}
	cn2, err := newQueue(t, connect(t, zktest.Servers(t)), path, queue.WithLockPath(locks)).NewConsumer(other.consume)
	require.NoError(t, err)
	start(t, cn2)
	require.NoError(t, q.Put(ctx, "next")) // wakes the other consumer, which passes the held item
	assert.Equal(t, []string{"next"}, other.waitFor(t, 1))
	close(g.release)
	assert.Eventually(t, func() bool { return !exists(t, c, node) }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, []string{"next"}, other.got(), "the held item went to its consumer alone")
}

// In the lock-safe mode an item whose consumer dies before its function
// returns is taken again by another (at least once); a transactional
// consumer's effect is applied by exactly one of them.
func TestConsumer_ItemOfAConsumerThatDiesGoesToAnother(t *testing.T) {
	for _, tx := range []bool{false, true} {
		t.Run(fmt.Sprintf("tx=%v", tx), func(t *testing.T) {
			servers := zktest.Servers(t)
			dying := connect(t, servers, framework.WithSessionTimeout(4*time.Second))
			c := connect(t, servers)
			ctx := testContext(t)
			path := zktest.UniquePath(t)
			locks, effectDir := path+"-locks", path+"-effects"
			_, err := c.Create(ctx, effectDir, nil, framework.Persistent, framework.WithParents())
			require.NoError(t, err)
			require.NoError(t, newQueue(t, c, path, queue.WithLockPath(locks)).Put(ctx, "work"))
			effect := func(item string) []framework.Op {
				return []framework.Op{framework.CreateOp(effectDir+"/e-", []byte(item), framework.PersistentSequential)}
			}
			g := newGate()
			var first *queue.Consumer[string]
			if tx {
				first, err = newQueue(t, dying, path, queue.WithLockPath(locks)).NewTxConsumer(func(ctx context.Context, item string) ([]framework.Op, error) {
					return effect(item), g.consume(ctx, item)
				})
			} else {
				first, err = newQueue(t, dying, path, queue.WithLockPath(locks)).NewConsumer(g.consume)
			}
			require.NoError(t, err)
			require.NoError(t, first.Start(ctx))
			assert.Equal(t, "work", g.next(t))
			require.NoError(t, dying.Close()) // the consumer's process dies with the item

			second := &recorder{}
			var cn *queue.Consumer[string]
			if tx {
				cn, err = newQueue(t, c, path, queue.WithLockPath(locks)).NewTxConsumer(func(ctx context.Context, item string) ([]framework.Op, error) {
					return effect(item), second.consume(ctx, item)
				})
			} else {
				cn, err = newQueue(t, c, path, queue.WithLockPath(locks)).NewConsumer(second.consume)
			}
			require.NoError(t, err)
			start(t, cn)
			assert.Equal(t, []string{"work"}, second.waitFor(t, 1), "taken again")
			close(g.release)
			<-first.Done()
			assert.Eventually(t, func() bool { return len(items(t, c, path)) == 0 }, 10*time.Second, 10*time.Millisecond)
			if tx {
				assert.Equal(t, []string{"work"}, effects(t, c, effectDir), "the effect once")
			}
		})
	}
}

// A function that fails gives the item back: requeued at the end of the
// queue (the default), or deleted.
func TestConsumer_FailedFunctionRequeuesOrDeletesTheItem(t *testing.T) {
	for _, mode := range []queue.ErrorMode{queue.Requeue, queue.Delete} {
		t.Run(mode.String(), func(t *testing.T) {
			c := connect(t, zktest.Servers(t))
			ctx := testContext(t)
			path := zktest.UniquePath(t)
			q := newQueue(t, c, path, queue.WithLockPath(path+"-locks"))
			require.NoError(t, q.PutMulti(ctx, []string{"a", "bad"}))
			require.NoError(t, q.Put(ctx, "c"))
			var failures atomic.Int32
			r := &recorder{fail: func(item string) error {
				if item == "bad" && failures.Add(1) == 1 {
					return errors.New("not now")
				}
				return nil
			}}
			cn, err := q.NewConsumer(r.consume, queue.WithErrorMode(mode))
			require.NoError(t, err)
			start(t, cn)
			if mode == queue.Requeue {
				// The whole node again, behind c: Curator's at-least-once.
				assert.Equal(t, []string{"a", "bad", "c", "a", "bad"}, r.waitFor(t, 5))
			} else {
				assert.Equal(t, []string{"a", "bad", "c"}, r.waitFor(t, 3))
			}
			assert.Eventually(t, func() bool { return len(items(t, c, path)) == 0 }, 10*time.Second, 10*time.Millisecond)
		})
	}
}

// Close while a function runs: its ctx ends, and an item whose function
// failed for it is left in the queue untouched, its lock released.
func TestConsumer_CloseDuringTheFunctionLeavesTheItem(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	locks := path + "-locks"
	q := newQueue(t, c, path, queue.WithLockPath(locks))
	require.NoError(t, q.Put(ctx, "unfinished"))
	before := items(t, c, path)
	g := newGate()
	cn, err := q.NewConsumer(g.consume)
	require.NoError(t, err)
	require.NoError(t, cn.Start(ctx))
	g.next(t)
	require.NoError(t, cn.Close(ctx))
	assert.Equal(t, before, items(t, c, path), "the same item, not requeued")
	require.NoError(t, q.Close(ctx))
	assert.Empty(t, children(t, c, locks), "its lock released")
	require.ErrorIs(t, cn.Start(ctx), queue.ErrClosed)
}

// Close called from the consumer's own function stops the consumer
// without waiting for that function, and the item is still deleted.
func TestConsumer_CloseFromTheFunctionDoesNotWaitForItself(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	q := newQueue(t, c, path, queue.WithLockPath(path+"-locks"))
	require.NoError(t, q.Put(ctx, "last"))
	closed := make(chan error, 1)
	var cn *queue.Consumer[string]
	cn, err := q.NewConsumer(func(ctx context.Context, item string) error {
		closed <- cn.Close(ctx)
		return nil
	})
	require.NoError(t, err)
	require.NoError(t, cn.Start(ctx))
	select {
	case err := <-closed:
		require.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("Close from the function did not return")
	}
	zktest.WaitClosed(t, cn.Done(), 10*time.Second, "the consumer stops")
	assert.Empty(t, items(t, c, path), "the item taken")
	assert.NoError(t, cn.Err())
}

// A node that is not in Curator's format is left where it is (and
// logged), and the items behind it are taken.
func TestConsumer_MalformedNodeIsLeftInPlace(t *testing.T) {
	for _, lock := range []bool{false, true} {
		t.Run(fmt.Sprintf("lock=%v", lock), func(t *testing.T) {
			c := connect(t, zktest.Servers(t))
			ctx := testContext(t)
			path := zktest.UniquePath(t)
			var opts []queue.Option
			if lock {
				opts = append(opts, queue.WithLockPath(path+"-locks"))
			}
			q := newQueue(t, c, path, opts...)
			require.NoError(t, c.EnsurePath(ctx, path))
			bad, err := c.Create(ctx, path+"/queue-", []byte("not curator's"), framework.PersistentSequential)
			require.NoError(t, err)
			_, err = c.Create(ctx, path+"/foreign", nil, framework.Persistent)
			require.NoError(t, err)
			require.NoError(t, q.Put(ctx, "good"))
			r := &recorder{}
			cn, err := q.NewConsumer(r.consume)
			require.NoError(t, err)
			start(t, cn)
			assert.Equal(t, []string{"good"}, r.waitFor(t, 1))
			assert.Eventually(t, func() bool { return len(items(t, c, path)) == 1 }, 10*time.Second, 10*time.Millisecond)
			assert.True(t, exists(t, c, bad), "the malformed node stays")
			assert.True(t, exists(t, c, path+"/foreign"))
		})
	}
}

// A consumer whose client closes stops, and says so.
func TestConsumer_StopsWithErrClosedWhenItsClientCloses(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	q := newQueue(t, c, zktest.UniquePath(t))
	cn, err := q.NewConsumer((&recorder{}).consume)
	require.NoError(t, err)
	require.NoError(t, cn.Start(testContext(t)))
	require.ErrorIs(t, cn.Start(testContext(t)), queue.ErrStarted)
	require.NoError(t, c.Close())
	zktest.WaitClosed(t, cn.Done(), 10*time.Second, "the consumer stops")
	require.ErrorIs(t, cn.Err(), queue.ErrClosed)
	assert.Equal(t, 1, strings.Count(cn.Err().Error(), "closed"), "said once: %v", cn.Err())
	assert.Contains(t, cn.Err().Error(), q.Path(), "names its queue")
}

// Consumers on one queue, with clients of their own or one client
// between them, take every item once: at most once without a lock path,
// exactly once in the lock-safe mode.
func TestConsumer_ManyConsumersTakeEveryItemOnce(t *testing.T) {
	zktest.ServerKinds(t, func(t *testing.T, proxy *zktest.Proxy) {
		manyConsumersTakeEveryItemOnce(t, proxy)
	})
}

func manyConsumersTakeEveryItemOnce(t *testing.T, proxy *zktest.Proxy) {
	for _, tc := range []struct{ lock, shared bool }{{false, false}, {true, false}, {true, true}} {
		lock := tc.lock
		t.Run(fmt.Sprintf("lock=%v,shared=%v", tc.lock, tc.shared), func(t *testing.T) {
			c := connect(t, proxy.Addr())
			consumerClient := func() *framework.Client {
				if tc.shared {
					return c
				}
				return connect(t, proxy.Addr())
			}
			ctx := testContext(t)
			path := zktest.UniquePath(t)
			var opts []queue.Option
			if lock {
				opts = append(opts, queue.WithLockPath(path+"-locks"))
			}
			q := newQueue(t, c, path, opts...)
			r := &recorder{}
			for range 4 {
				cn, err := newQueue(t, consumerClient(), path, opts...).NewConsumer(r.consume, queue.WithConcurrency(2))
				require.NoError(t, err)
				start(t, cn)
			}
			const n = 300
			errs := make(chan error, n)
			for i := range n {
				go func() { errs <- q.Put(ctx, fmt.Sprintf("item-%03d", i)) }() // ends with the put
			}
			for range n {
				require.NoError(t, <-errs)
			}
			got := r.waitFor(t, n)
			seen := map[string]int{}
			for _, it := range got {
				seen[it]++
			}
			assert.Len(t, seen, n)
			for it, k := range seen {
				assert.Equal(t, 1, k, "%s taken %d times", it, k)
			}
		})
	}
}

// Bad paths, counts, priorities, times, ids and values too large are
// ErrInvalidArgument, and nothing is written.
func TestQueue_BadInputIsAClearErrorAndWritesNothing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	for name, opts := range map[string][]queue.Option{
		"negative maximum": {queue.WithMaxItems(-1)},
		"zero maximum":     {queue.WithMaxItems(0)},
		"odd lock path":    {queue.WithLockPath("locks")},
		"lock path inside": {queue.WithLockPath(path + "/locks")},
		"nil logger":       {queue.WithLogger(nil)},
		"nil option":       {nil},
		"a consumer's":     {queue.WithConcurrency(2)},
	} {
		_, err := queue.New(c, path, queue.StringCodec{}, opts...)
		assert.ErrorIs(t, err, queue.ErrInvalidArgument, name)
	}
	for _, p := range []string{"", "jobs", "/jobs/", "/", "/a//b", "/a/./b"} {
		_, err := queue.New(c, p, queue.StringCodec{})
		assert.ErrorIs(t, err, queue.ErrInvalidArgument, "path %q", p)
	}
	_, err := queue.New[string](nil, path, queue.StringCodec{})
	assert.ErrorIs(t, err, queue.ErrInvalidArgument, "nil client")
	_, err = queue.New[string](c, path, nil)
	assert.ErrorIs(t, err, queue.ErrInvalidArgument, "nil codec")

	q := newQueue(t, c, path)
	for name, opts := range map[string][]queue.Option{
		"a queue's":         {queue.WithMaxItems(3)},
		"zero concurrency":  {queue.WithConcurrency(0)},
		"negative refresh":  {queue.WithMinItemsBeforeRefresh(-1)},
		"unknown errormode": {queue.WithErrorMode(7)},
	} {
		_, err := q.NewConsumer((&recorder{}).consume, opts...)
		assert.ErrorIs(t, err, queue.ErrInvalidArgument, name)
	}
	_, err = q.NewConsumer(nil)
	assert.ErrorIs(t, err, queue.ErrInvalidArgument)

	huge := string(make([]byte, framework.MaxRequestSize))
	assert.ErrorIs(t, q.Put(ctx, huge), queue.ErrInvalidArgument, "a value that does not fit")
	assert.ErrorIs(t, q.PutMulti(ctx, []string{huge[:framework.MaxRequestSize/2], huge[:framework.MaxRequestSize/2]}), queue.ErrInvalidArgument)
	assert.ErrorIs(t, q.PutMulti(ctx, nil), queue.ErrInvalidArgument, "no item")
	pq, err := queue.NewPriorityQueue(c, path, queue.StringCodec{})
	require.NoError(t, err)
	assert.ErrorIs(t, pq.Put(ctx, "x", 1<<31), queue.ErrInvalidArgument, "a priority beyond Java's int")
	assert.ErrorIs(t, pq.Put(ctx, "x", -1<<31-1), queue.ErrInvalidArgument)
	dq, err := queue.NewDelayQueue(c, path, queue.StringCodec{})
	require.NoError(t, err)
	assert.ErrorIs(t, dq.Put(ctx, "x", time.Unix(0, 0)), queue.ErrInvalidArgument, "a time not after the epoch")
	iq, err := queue.NewIDQueue(c, path, queue.StringCodec{})
	require.NoError(t, err)
	assert.ErrorIs(t, iq.Put(ctx, "x", ""), queue.ErrInvalidArgument, "an empty id")
	assert.ErrorIs(t, iq.Put(ctx, "x", "a\x00b"), queue.ErrInvalidArgument, "an id that makes no node name")
	_, err = iq.Remove(ctx, "")
	assert.ErrorIs(t, err, queue.ErrInvalidArgument)
	ok, _, err := c.Exists(ctx, path)
	require.NoError(t, err)
	assert.False(t, ok, "nothing written")
}

// A bounded queue's put waits while the queue is full.
func TestQueue_BoundedPutWaitsForRoom(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	q := newQueue(t, c, path, queue.WithMaxItems(2))
	require.NoError(t, q.Put(ctx, "1"))
	require.NoError(t, q.Put(ctx, "2"))
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, q.Put(short, "3"), context.DeadlineExceeded, "full: the put waits")
	assert.Len(t, items(t, c, path), 2)
	done := make(chan error, 1)
	go func() { done <- q.Put(ctx, "3") }() // ends once there is room
	first := items(t, c, path)[0]
	require.NoError(t, c.Delete(ctx, path+"/"+first, -1))
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("the put did not go in when there was room")
	}
	assert.Len(t, items(t, c, path), 2)
}

// Puts made at the same time share transactions, and each caller's puts
// keep their order.
func TestQueue_ConcurrentPutsShareTransactions(t *testing.T) {
	proxy, c := proxied(t)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	q := newQueue(t, c, path, queue.WithLockPath(path+"-locks"))
	require.NoError(t, q.Put(ctx, "warm"))
	before := proxy.Requests(zktest.OpMulti)
	const callers, each = 20, 10
	errs := make(chan error, callers)
	for i := range callers {
		go func() { // ends after its puts
			for j := range each {
				if err := q.Put(ctx, fmt.Sprintf("%02d-%02d", i, j)); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range callers {
		require.NoError(t, <-errs)
	}
	sent := proxy.Requests(zktest.OpMulti) - before
	t.Logf("%d puts in %d transactions", callers*each, sent)
	assert.Less(t, sent, int64(callers*each), "puts waiting together went in one transaction")
	var got []string
	for _, n := range items(t, c, path) {
		data, _, err := c.Get(ctx, path+"/"+n)
		require.NoError(t, err)
		its, err := queue.Decode(data)
		require.NoError(t, err)
		got = append(got, string(its[0]))
	}
	last := map[string]string{}
	for _, it := range got[1:] {
		caller := it[:2]
		assert.Less(t, last[caller], it, "a caller's puts in order")
		last[caller] = it
	}
	assert.Len(t, got, callers*each+1)
}

// A put whose ctx ends before its transaction is sent is withdrawn:
// nothing is written.
func TestQueue_PutWithdrawnWhenItsContextEndsBeforeItIsSent(t *testing.T) {
	proxy, c := proxied(t)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	q := newQueue(t, c, path, queue.WithLockPath(path+"-locks"))
	require.NoError(t, q.Put(ctx, "warm"))
	proxy.HoldRepliesFrom(zktest.OpMulti) // the next batch waits for its answer
	first := make(chan error, 1)
	go func() { first <- q.Put(ctx, "held") }() // ends when the replies are released
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpMulti) >= 2 }, 10*time.Second, time.Millisecond)
	short, cancel := context.WithCancel(ctx)
	cancel()
	require.ErrorIs(t, q.Put(short, "withdrawn"), context.Canceled)
	queued, cancelQueued := context.WithCancel(ctx)
	second := make(chan error, 1)
	go func() { second <- q.Put(queued, "withdrawn-while-queued") }() // ends with its ctx
	cancelQueued()
	require.ErrorIs(t, <-second, context.Canceled)
	proxy.ReleaseReplies()
	require.NoError(t, <-first)
	assert.Len(t, items(t, c, path), 2, "warm and held only")
}

// An id queue's Remove leaves an item that a consumer holds.
func TestIDQueue_RemoveLeavesAnItemAConsumerHolds(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	locks := path + "-locks"
	iq, err := queue.NewIDQueue(c, path, queue.StringCodec{}, queue.WithLockPath(locks))
	require.NoError(t, err)
	require.NoError(t, iq.Put(ctx, "held", "x"))
	g := newGate()
	cn, err := iq.NewConsumer(g.consume)
	require.NoError(t, err)
	start(t, cn)
	g.next(t)
	require.NoError(t, iq.Put(ctx, "free", "x"))
	n, err := iq.Remove(ctx, "x")
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the free one only")
	close(g.release)
	assert.Eventually(t, func() bool { return len(items(t, c, path)) == 0 }, 10*time.Second, 10*time.Millisecond)
	n, err = iq.Remove(ctx, "x")
	require.NoError(t, err)
	assert.Zero(t, n)
}

// A Remove whose ctx ends while it removes finishes the item under way
// (its lock and delete are never left half done) and starts no other: it
// says how many it removed, with ctx's error.
func TestIDQueue_RemoveStopsAtTheItemUnderWayWhenItsCtxEnds(t *testing.T) {
	proxy, c := proxied(t)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	locks := path + "-locks"
	iq, err := queue.NewIDQueue(c, path, queue.StringCodec{}, queue.WithLockPath(locks))
	require.NoError(t, err)
	for _, item := range []string{"a", "b", "c"} {
		require.NoError(t, iq.Put(ctx, item, "x"))
	}
	require.NoError(t, iq.Close(ctx)) // its marker gone, only lock nodes come in the lock path
	removing, cancel := context.WithCancel(ctx)
	defer cancel()
	creates := proxy.Requests(zktest.OpCreate)
	proxy.HoldRepliesFrom(zktest.OpCreate) // the first item's lock
	type removed struct {
		n   int
		err error
	}
	done := make(chan removed, 1)
	go func() { // ends when the remove returns
		n, err := iq.Remove(removing, "x")
		done <- removed{n, err}
	}()
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpCreate) > creates }, 10*time.Second, time.Millisecond)
	cancel()
	proxy.ReleaseReplies()
	r := <-done
	require.ErrorIs(t, r.err, context.Canceled)
	assert.Equal(t, 1, r.n, "the item under way")
	assert.Len(t, items(t, c, path), 2, "the others stay")
	assert.Empty(t, children(t, c, locks), "no lock node left")
}

// A priority queue's consumer takes an item of higher priority put during
// a batch before the rest of the batch.
func TestPriorityQueue_ItemOfHigherPriorityGoesBeforeTheRestOfTheBatch(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	pq, err := queue.NewPriorityQueue(c, path, queue.StringCodec{}, queue.WithLockPath(path+"-locks"))
	require.NoError(t, err)
	for i := range 5 {
		require.NoError(t, pq.Put(ctx, fmt.Sprintf("low-%d", i), 10))
	}
	r := &recorder{}
	var once atomic.Bool
	cn, err := pq.NewConsumer(func(ctx context.Context, item string) error {
		if once.CompareAndSwap(false, true) {
			if err := pq.Put(ctx, "urgent", -5); err != nil {
				return err
			}
		}
		return r.consume(ctx, item)
	})
	require.NoError(t, err)
	start(t, cn)
	assert.Equal(t, []string{"low-0", "urgent", "low-1", "low-2", "low-3", "low-4"}, r.waitFor(t, 6))
}

// A delay queue's item is taken no sooner than its time, in time order.
func TestDelayQueue_ItemsAreTakenNoSoonerThanTheirTime(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	dq, err := queue.NewDelayQueue(c, path, queue.StringCodec{})
	require.NoError(t, err)
	now := time.Now()
	due := map[string]time.Time{"late": now.Add(1200 * time.Millisecond), "soon": now.Add(400 * time.Millisecond), "now": now}
	for _, it := range []string{"late", "soon", "now"} {
		require.NoError(t, dq.Put(ctx, it, due[it]))
	}
	at := map[string]time.Time{}
	r := &recorder{}
	cn, err := dq.NewConsumer(func(ctx context.Context, item string) error {
		at[item] = time.Now()
		return r.consume(ctx, item)
	})
	require.NoError(t, err)
	start(t, cn)
	assert.Equal(t, []string{"now", "soon", "late"}, r.waitFor(t, 3))
	for it, d := range due {
		assert.False(t, at[it].Before(d.Truncate(time.Millisecond)), "%s taken at %v, due %v", it, at[it], d)
	}
}

// A session that ends under a producer: its next put makes a new marker.
func TestQueue_PutAfterTheSessionEndedMakesANewMarker(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(4*time.Second))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	locks := path + "-locks"
	q := newQueue(t, c, path, queue.WithLockPath(locks))
	require.NoError(t, q.Put(ctx, "before"))
	old := c.Session()
	proxy.Pause()
	zktest.WaitClosed(t, old.Lost(), 30*time.Second, "the session lost")
	proxy.Resume()
	require.NoError(t, q.Put(ctx, "after"))
	assert.Len(t, items(t, c, path), 2)
	markers := children(t, c, locks)
	require.Len(t, markers, 1, "the old marker went with its session")
	_, stat, err := c.Exists(ctx, locks+"/"+markers[0])
	require.NoError(t, err)
	assert.Equal(t, c.Session().ID(), stat.EphemeralOwner)
	assert.NotErrorIs(t, err, zk.ErrNoNode)
}

// In the lock-safe mode the function's ctx ends when the session of the
// item's lock is lost, and the item goes to another consumer.
func TestConsumer_FunctionsCtxEndsWhenItsLockIsLost(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(4*time.Second))
	direct := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	locks := path + "-locks"
	require.NoError(t, newQueue(t, direct, path, queue.WithLockPath(locks)).Put(ctx, "work"))
	g := newGate()
	ended := make(chan error, 1)
	cn, err := newQueue(t, c, path, queue.WithLockPath(locks)).NewConsumer(func(ctx context.Context, item string) error {
		err := g.consume(ctx, item)
		ended <- err
		return err
	})
	require.NoError(t, err)
	start(t, cn)
	g.next(t)
	session := c.Session()
	proxy.Pause()
	zktest.WaitClosed(t, session.Lost(), 30*time.Second, "the session lost")
	select {
	case err := <-ended:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the function's ctx did not end with the lock's session")
	}
	other := &recorder{}
	cn2, err := newQueue(t, direct, path, queue.WithLockPath(locks)).NewConsumer(other.consume)
	require.NoError(t, err)
	start(t, cn2)
	assert.Equal(t, []string{"work"}, other.waitFor(t, 1), "the item goes to another")
	proxy.Resume()
}

// A consumer that loses its connection takes, once back, the items put
// while it was away: the server tells a recursive watch nothing of them,
// so the consumer lists the queue again.
func TestConsumer_TakesTheItemsPutWhileItsConnectionWasDown(t *testing.T) {
	zktest.ServerKinds(t, func(t *testing.T, proxy *zktest.Proxy) {
		ctx := testContext(t)
		path := zktest.UniquePath(t)
		producer := newQueue(t, connect(t, zktest.Servers(t)), path)
		r := &recorder{}
		cn, err := newQueue(t, connect(t, proxy.Addr()), path).NewConsumer(r.consume)
		require.NoError(t, err)
		start(t, cn)
		require.NoError(t, producer.Put(ctx, "before"))
		r.waitFor(t, 1)
		proxy.Pause()
		for i := range 5 {
			require.NoError(t, producer.Put(ctx, fmt.Sprint("away-", i)))
		}
		proxy.Cut()
		proxy.Resume()
		assert.Equal(t, []string{"before", "away-0", "away-1", "away-2", "away-3", "away-4"}, r.waitFor(t, 6))
	})
}
