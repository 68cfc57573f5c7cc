package queue_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

// proxied returns a client whose traffic goes through a fault proxy.
func proxied(t testing.TB) (*zktest.Proxy, *framework.Client) {
	t.Helper()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	return proxy, connect(t, proxy.Addr())
}

// A put whose answer is lost is applied once and reported applied: the
// producer's marker tells the retry that the lost run went through.
func TestQueue_PutWhoseAnswerIsLostIsAppliedOnceWithALockPath(t *testing.T) {
	proxy, c := proxied(t)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	q := newQueue(t, c, path, queue.WithLockPath(path+"-locks"))
	require.NoError(t, q.Put(ctx, "first")) // the marker exists: the next multi is a put's
	proxy.DropNextReply(zktest.OpMulti)
	require.NoError(t, q.Put(ctx, "second"))
	assert.Equal(t, 1, proxy.DroppedRepliesOf(zktest.OpMulti))
	assert.Len(t, items(t, c, path), 2, "no duplicate of the put whose answer was lost")
}

// Without a lock path there is no marker: the put whose answer is lost
// says so, and is not repeated.
func TestQueue_PutWhoseAnswerIsLostWithoutALockPathIsUnknownAndNotRepeated(t *testing.T) {
	proxy, c := proxied(t)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	q := newQueue(t, c, path)
	require.NoError(t, q.Put(ctx, "first"))
	proxy.DropNextReply(zktest.OpMulti)
	require.ErrorIs(t, q.Put(ctx, "second"), queue.ErrOutcomeUnknown)
	assert.Len(t, items(t, c, path), 2, "applied once, never twice")
}

// The lock-safe consumer's closing transaction (delete item and lock)
// whose answer is lost: the lock node tells that it ran, and the function
// is not called again.
func TestConsumer_CommitWhoseAnswerIsLostTakesTheItemOnce(t *testing.T) {
	proxy, c := proxied(t)
	direct := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	locks := path + "-locks"
	producer := newQueue(t, direct, path, queue.WithLockPath(locks))
	for i := range 3 {
		require.NoError(t, producer.Put(ctx, fmt.Sprintf("item-%d", i)))
	}
	proxy.DropNextReply(zktest.OpMulti)
	r := &recorder{}
	cn, err := newQueue(t, c, path, queue.WithLockPath(locks)).NewConsumer(r.consume)
	require.NoError(t, err)
	start(t, cn)
	assert.Equal(t, []string{"item-0", "item-1", "item-2"}, r.waitFor(t, 3))
	assert.Eventually(t, func() bool { return len(items(t, c, path)) == 0 }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, 1, proxy.DroppedRepliesOf(zktest.OpMulti))
	require.NoError(t, producer.Close(ctx))
	assert.Empty(t, children(t, direct, locks), "no lock node left")
	assert.Equal(t, []string{"item-0", "item-1", "item-2"}, r.got(), "no item twice")
}

// The create of an item's lock node whose answer is lost: sent again, it
// finds the node, which is the consumer's own (its session owns it).
func TestConsumer_LockWhoseAnswerIsLostIsTheConsumersOwn(t *testing.T) {
	proxy, c := proxied(t)
	direct := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	locks := path + "-locks"
	require.NoError(t, newQueue(t, direct, path, queue.WithLockPath(locks)).Put(ctx, "only"))
	proxy.DropNextCreateReply()
	r := &recorder{}
	cn, err := newQueue(t, c, path, queue.WithLockPath(locks)).NewConsumer(r.consume)
	require.NoError(t, err)
	start(t, cn)
	assert.Equal(t, []string{"only"}, r.waitFor(t, 1))
	assert.Equal(t, 1, proxy.DroppedReplies())
	assert.Eventually(t, func() bool { return len(items(t, c, path)) == 0 && len(children(t, direct, locks)) <= 1 },
		10*time.Second, 10*time.Millisecond, "the item and its lock are gone (the producer's marker may stay)")
}

// A lock whose create's answer is lost, and whose client may not try
// again, fails the take; the lock node the lost create made is deleted,
// so that no lock stands for an item nobody is taking, even when the
// consumer stops before it looks again.
func TestConsumer_LockThatFailsAfterItsAnswerIsLostLeavesNoLockNode(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithRetryPolicy(framework.NoRetry()))
	direct := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	locks := path + "-locks"
	producer := newQueue(t, direct, path, queue.WithLockPath(locks))
	require.NoError(t, producer.Put(ctx, "only"))
	require.NoError(t, producer.Close(ctx)) // its marker goes: the lock path holds lock nodes only
	proxy.DropNextCreateReply()
	r := &recorder{}
	cn, err := newQueue(t, c, path, queue.WithLockPath(locks)).NewConsumer(r.consume)
	require.NoError(t, err)
	require.NoError(t, cn.Start(ctx))
	require.Eventually(t, func() bool { return proxy.DroppedReplies() == 1 }, 10*time.Second, time.Millisecond)
	closing, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	require.NoError(t, cn.Close(closing))
	assert.Eventually(t, func() bool { return len(children(t, direct, locks)) == 0 }, 10*time.Second, 10*time.Millisecond,
		"no lock node left")
	assert.Len(t, items(t, direct, path), 1-len(r.got()), "the item taken once, or left")
}

// effects lists what a transactional consumer's effect made: one node per
// application, holding the item.
func effects(t testing.TB, c *framework.Client, dir string) []string {
	t.Helper()
	var out []string
	for _, n := range children(t, c, dir) {
		data, _, err := c.Get(testContext(t), dir+"/"+n)
		require.NoError(t, err)
		out = append(out, string(data))
	}
	return out
}

// A transactional consumer whose transaction's answer is lost applies the
// item's effect exactly once, with and without a lock path.
func TestTxConsumer_EffectIsAppliedExactlyOnceWhenTheAnswerIsLost(t *testing.T) {
	for _, lock := range []bool{true, false} {
		t.Run(fmt.Sprintf("lock=%v", lock), func(t *testing.T) {
			proxy, c := proxied(t)
			direct := connect(t, zktest.Servers(t))
			ctx := testContext(t)
			path := zktest.UniquePath(t)
			var opts []queue.Option
			if lock {
				opts = append(opts, queue.WithLockPath(path+"-locks"))
			}
			effectDir := path + "-effects"
			_, err := direct.Create(ctx, effectDir, nil, framework.Persistent, framework.WithParents())
			require.NoError(t, err)
			producer := newQueue(t, direct, path, opts...)
			for i := range 3 {
				require.NoError(t, producer.Put(ctx, fmt.Sprintf("item-%d", i)))
			}
			proxy.DropNextReply(zktest.OpMulti)
			calls := &recorder{}
			cn, err := newQueue(t, c, path, opts...).NewTxConsumer(func(ctx context.Context, item string) ([]framework.Op, error) {
				_ = calls.consume(ctx, item)
				return []framework.Op{framework.CreateOp(effectDir+"/e-", []byte(item), framework.PersistentSequential)}, nil
			})
			require.NoError(t, err)
			start(t, cn)
			require.Eventually(t, func() bool { return len(items(t, direct, path)) == 0 }, 20*time.Second, 10*time.Millisecond)
			assert.Equal(t, 1, proxy.DroppedRepliesOf(zktest.OpMulti))
			assert.Equal(t, []string{"item-0", "item-1", "item-2"}, effects(t, direct, effectDir), "each effect once")
		})
	}
}

// multiWatcher is an Observer that tells when a transaction's try fails.
type multiWatcher struct {
	framework.NoopObserver
	failed chan error
}

func (w *multiWatcher) OnRequest(ev framework.RequestEvent) {
	if ev.Op == "multi" && ev.Err != nil {
		select {
		case w.failed <- ev.Err:
		default:
		}
	}
}

// The lock-safe consumer's closing transaction that never reached the
// server (the connection went with it): its lock node, still there and
// the consumer's own, says it did not run, so it is sent again, and the
// function is not called a second time.
func TestConsumer_CommitLostOnTheWayIsSentAgainAndTakesTheItemOnce(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	obs := &multiWatcher{failed: make(chan error, 1)}
	c := connect(t, proxy.Addr(), framework.WithObserver(obs), framework.WithSessionTimeout(4*time.Second))
	direct := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	locks := path + "-locks"
	require.NoError(t, newQueue(t, direct, path, queue.WithLockPath(locks)).Put(ctx, "only"))
	called, release := make(chan struct{}), make(chan struct{})
	r := &recorder{}
	cn, err := newQueue(t, c, path, queue.WithLockPath(locks)).NewConsumer(func(ctx context.Context, item string) error {
		if len(r.got()) == 0 {
			close(called)
			<-release
		}
		return r.consume(ctx, item)
	})
	require.NoError(t, err)
	start(t, cn)
	zktest.WaitClosed(t, called, 20*time.Second, "the function called")
	proxy.Pause() // the closing transaction goes nowhere
	close(release)
	select {
	case err := <-obs.failed:
		t.Logf("the transaction's try failed: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("the closing transaction did not fail")
	}
	proxy.Resume()
	assert.Eventually(t, func() bool { return len(items(t, direct, path)) == 0 }, 20*time.Second, 10*time.Millisecond)
	assert.Eventually(t, func() bool { return len(children(t, direct, locks)) <= 1 }, 10*time.Second, 10*time.Millisecond,
		"no lock node left (the producer's marker may stay)")
	assert.Equal(t, []string{"only"}, r.got(), "the function called once")
}

// A put while the server cannot be reached ends with its ctx, and is
// applied once at most when the server is back; a consumer started then
// closes at once.
func TestQueue_ServerUnreachableFromTheStart(t *testing.T) {
	proxy, c := proxied(t)
	direct := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	q := newQueue(t, c, path, queue.WithLockPath(path+"-locks"))
	cn, err := q.NewConsumer((&recorder{}).consume)
	require.NoError(t, err)
	proxy.Pause()
	require.NoError(t, cn.Start(ctx))
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	err = q.Put(short, "maybe")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorIs(t, err, queue.ErrOutcomeUnknown, "on its way: it may still be applied")
	closing, cancelClose := context.WithTimeout(ctx, 5*time.Second)
	defer cancelClose()
	require.NoError(t, cn.Close(closing), "the consumer stops while the server is away")
	proxy.Resume()
	require.NoError(t, q.Put(ctx, "sure"))
	got := items(t, direct, path)
	assert.True(t, len(got) == 1 || len(got) == 2, "the first put applied once at most: %v", got)
}

// Without a lock path, a take whose delete's answer is lost cannot tell
// its delete from another consumer's: the item is dropped, never handed
// out twice (at most once).
func TestConsumer_AtMostOnceDropsAnItemWhoseDeleteAnswerIsLost(t *testing.T) {
	proxy, c := proxied(t)
	direct := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	producer := newQueue(t, direct, path)
	require.NoError(t, producer.Put(ctx, "dropped"))
	require.NoError(t, producer.Put(ctx, "taken"))
	proxy.DropNextReply(zktest.OpDelete)
	r := &recorder{}
	cn, err := newQueue(t, c, path).NewConsumer(r.consume)
	require.NoError(t, err)
	start(t, cn)
	assert.Equal(t, []string{"taken"}, r.waitFor(t, 1))
	assert.Eventually(t, func() bool { return len(items(t, direct, path)) == 0 }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, 1, proxy.DroppedRepliesOf(zktest.OpDelete))
	assert.Equal(t, []string{"taken"}, r.got())
}

// An at-most-once consumer whose ctx ends while it reads an item leaves the
// item: it deletes an item only to hand it to a function whose ctx lasts,
// since a function that sees its ctx ended drops the item.
func TestConsumer_AtMostOnceStoppedWhileReadingAnItemLeavesIt(t *testing.T) {
	proxy, c := proxied(t)
	direct := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, newQueue(t, direct, path).Put(ctx, "left"))
	before := items(t, direct, path)
	var calls atomic.Int32
	cn, err := newQueue(t, c, path).NewConsumer(func(context.Context, string) error { calls.Add(1); return nil })
	require.NoError(t, err)
	running, stop := context.WithCancel(ctx)
	defer stop()
	reads := proxy.Requests(zktest.OpGetData)
	proxy.HoldRepliesFrom(zktest.OpGetData) // the item's read
	require.NoError(t, cn.Start(running))
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpGetData) > reads }, 10*time.Second, time.Millisecond)
	stop()
	proxy.ReleaseReplies()
	zktest.WaitClosed(t, cn.Done(), 10*time.Second, "the consumer's end")
	assert.Zero(t, calls.Load(), "the function is not called")
	assert.Equal(t, before, items(t, direct, path), "the item stays")
}

// A put whose answer is lost, and whose session then ends before it is
// sent again, is not applied a second time: the marker that could tell went
// with the session, so the put is unknown rather than repeated under a new
// marker. The retry policy's wait outlasts the session, as a backoff of a
// few retries does.
func TestQueue_PutWhoseAnswerIsLostAsItsSessionEndsIsNotRepeated(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(4*time.Second),
		framework.WithRetryPolicy(framework.RetryNTimes(3, 15*time.Second)))
	direct := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	locks := path + "-locks"
	q := newQueue(t, c, path, queue.WithLockPath(locks))
	require.NoError(t, q.Put(ctx, "first")) // the marker exists
	session := c.Session()
	proxy.PauseReplies() // the put reaches the server; its answer does not come back
	put := make(chan error, 1)
	go func() { put <- q.Put(ctx, "second") }() // ends when the put gives up or is applied
	require.Eventually(t, func() bool { return len(items(t, direct, path)) == 2 }, 10*time.Second, 10*time.Millisecond,
		"the put is applied")
	proxy.Pause() // the server no longer hears the client: the session expires
	zktest.WaitClosed(t, session.Lost(), 30*time.Second, "the client gives the session up")
	require.Eventually(t, func() bool { return len(children(t, direct, locks)) == 0 }, 30*time.Second, 10*time.Millisecond,
		"the server expires the session, and its marker")
	proxy.Resume()
	select {
	case err := <-put:
		assert.ErrorIs(t, err, queue.ErrOutcomeUnknown, "the proof of the lost run went with its session")
	case <-time.After(60 * time.Second):
		t.Fatal("the put did not end")
	}
	assert.Equal(t, []string{"first", "second"}, queueData(t, direct, path), "applied once, never twice")
}

// queueData returns the items of the queue's nodes, in order.
func queueData(t testing.TB, c *framework.Client, path string) []string {
	t.Helper()
	var out []string
	for _, n := range items(t, c, path) {
		data, _, err := c.Get(testContext(t), path+"/"+n)
		require.NoError(t, err)
		raw, err := queue.Decode(data)
		require.NoError(t, err)
		for _, b := range raw {
			out = append(out, string(b))
		}
	}
	return out
}

// A put given up on after a lost answer leaves its marker at a version the
// producer does not know: the next put does not take the marker's refusal
// for a lost run of its own, which would report it applied though it never
// was.
func TestQueue_PutAfterOneGivenUpOnIsNotReportedAppliedUnlessItWas(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithRetryPolicy(framework.RetryNTimes(1, 10*time.Millisecond)))
	direct := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	q := newQueue(t, c, path, queue.WithLockPath(path+"-locks"))
	require.NoError(t, q.Put(ctx, "first")) // the marker exists
	proxy.DropNextReply(zktest.OpMulti)     // the put runs, its answer is lost,
	proxy.DropNextReply(zktest.OpMulti)     // and so is the marker's refusal of the retry
	require.ErrorIs(t, q.Put(ctx, "given up"), queue.ErrOutcomeUnknown)
	proxy.DropNextReply(zktest.OpMulti) // the next put's first answer is lost too
	assert.NoError(t, q.Put(ctx, "next"), "a marker of its own tells that its lost run applied it")
	assert.Equal(t, 3, proxy.DroppedRepliesOf(zktest.OpMulti))
	assert.Equal(t, []string{"first", "given up", "next"}, queueData(t, direct, path), "each put applied once")
}

// A transactional take whose closing transaction is applied while its
// answer is lost, and whose session then ends, applies the effect once:
// the consumer cannot tell, says the item not taken, and goes on in a new
// session; nobody takes the item again.
func TestTxConsumer_CommitWhoseAnswerIsLostAsTheSessionEndsAppliesTheEffectOnce(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(4*time.Second))
	direct := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	locks, effectDir := path+"-locks", path+"-effects"
	_, err := direct.Create(ctx, effectDir, nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	producer := newQueue(t, direct, path, queue.WithLockPath(locks))
	require.NoError(t, producer.Put(ctx, "only"))
	called, release := make(chan struct{}), make(chan struct{})
	var first sync.Once
	cn, err := newQueue(t, c, path, queue.WithLockPath(locks)).NewTxConsumer(func(_ context.Context, item string) ([]framework.Op, error) {
		first.Do(func() { close(called); <-release })
		return []framework.Op{framework.CreateOp(effectDir+"/e-", []byte(item), framework.PersistentSequential)}, nil
	})
	require.NoError(t, err)
	start(t, cn)
	zktest.WaitClosed(t, called, 20*time.Second, "the function called")
	session := c.Session()
	proxy.PauseReplies() // the closing transaction reaches the server; its answer does not come back
	close(release)
	require.Eventually(t, func() bool { return len(items(t, direct, path)) == 0 }, 10*time.Second, 10*time.Millisecond,
		"the closing transaction is applied")
	proxy.Pause() // the server no longer hears the client: the session expires
	zktest.WaitClosed(t, session.Lost(), 30*time.Second, "the client gives the session up")
	require.Eventually(t, func() bool { return len(children(t, direct, locks)) <= 1 }, 30*time.Second, 10*time.Millisecond,
		"the server expires the session (the producer's marker stays)")
	proxy.Resume()
	require.NoError(t, producer.Put(ctx, "next"))
	assert.Eventually(t, func() bool { return len(effects(t, direct, effectDir)) >= 2 }, 20*time.Second, 10*time.Millisecond,
		"the consumer goes on in its new session")
	assert.Equal(t, []string{"only", "next"}, effects(t, direct, effectDir), "each effect once")
	assert.Empty(t, items(t, direct, path))
}

// Puts that go in one transaction (group commit) and lose its answer are
// each applied once and reported applied.
func TestQueue_PutsInOneTransactionWhoseAnswerIsLostAreEachAppliedOnce(t *testing.T) {
	proxy, c := proxied(t)
	direct := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	q := newQueue(t, c, path, queue.WithLockPath(path+"-locks"))
	require.NoError(t, q.Put(ctx, "first")) // the marker exists
	proxy.HoldReplies()                     // the puts below pile up behind the lead's
	var wg sync.WaitGroup
	errs := make(chan error, 21)
	wg.Go(func() { errs <- q.Put(ctx, "lead") }) // ends when the put does
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpMulti) >= 2 }, 10*time.Second, 10*time.Millisecond)
	for i := range 20 {
		wg.Go(func() { errs <- q.Put(ctx, fmt.Sprintf("item-%02d", i)) }) // ends when the put does
	}
	proxy.DropNextReply(zktest.OpMulti) // the transaction of the puts that piled up
	proxy.ReleaseReplies()
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	assert.Equal(t, 1, proxy.DroppedRepliesOf(zktest.OpMulti))
	got := queueData(t, direct, path)
	assert.Len(t, got, 22, "each put once: %v", got)
	seen := map[string]int{}
	for _, it := range got {
		seen[it]++
	}
	for it, n := range seen {
		assert.Equal(t, 1, n, "item %s", it)
	}
}

// A put made while the client has never reached the server waits unsent:
// when its ctx ends it is withdrawn (ctx's error, not ErrOutcomeUnknown),
// and the server, back, gets nothing of it.
func TestQueue_PutWhileTheServerWasNeverReachedIsWithdrawn(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	proxy.Pause()
	c, err := framework.New([]string{proxy.Addr()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	direct := connect(t, zktest.Servers(t))
	path := zktest.UniquePath(t)
	queues := map[string]*queue.Queue[string]{
		"without a lock path": newQueue(t, c, path),
		"with a lock path":    newQueue(t, c, path, queue.WithLockPath(path+"-locks")),
	}
	for name, q := range queues {
		short, cancel := context.WithTimeout(testContext(t), 300*time.Millisecond)
		err := q.Put(short, "withdrawn")
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded, name)
		assert.NotErrorIs(t, err, queue.ErrOutcomeUnknown, "%s: nothing was sent", name)
	}
	proxy.Resume()
	ctx := testContext(t)
	require.NoError(t, c.WaitConnected(ctx))
	for _, q := range queues {
		require.NoError(t, q.Put(ctx, "sent"))
	}
	assert.Len(t, items(t, direct, path), 2, "only the puts made once connected")
}
