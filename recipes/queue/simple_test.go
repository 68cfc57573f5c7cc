package queue_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

func newSimple(t testing.TB, c *framework.Client, path string) *queue.Simple {
	t.Helper()
	s, err := queue.NewSimple(c, path)
	require.NoError(t, err)
	return s
}

// Take waits for an offer; Poll waits at most its time; Peek leaves the
// head; every item once, in order.
func TestSimple_TakePollAndPeekInOrder(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSimple(t, c, path)
	_, err := s.Peek(ctx)
	require.ErrorIs(t, err, queue.ErrEmpty, "no directory yet")
	_, err = s.Poll(ctx, 0)
	require.ErrorIs(t, err, queue.ErrEmpty)
	_, err = s.Poll(ctx, 200*time.Millisecond)
	require.ErrorIs(t, err, queue.ErrEmpty, "none came in time")

	taken := make(chan []byte, 1)
	go func() { // ends with the take
		data, err := s.Take(ctx)
		assert.NoError(t, err)
		taken <- data
	}()
	other := newSimple(t, connect(t, zktest.Servers(t)), path)
	require.NoError(t, other.Offer(ctx, []byte("first")))
	select {
	case data := <-taken:
		assert.Equal(t, "first", string(data))
	case <-time.After(20 * time.Second):
		t.Fatal("Take did not get the offer")
	}
	for i := range 3 {
		require.NoError(t, s.Offer(ctx, []byte(fmt.Sprint(i))))
	}
	head, err := s.Peek(ctx)
	require.NoError(t, err)
	assert.Equal(t, "0", string(head))
	for i := range 3 {
		data, err := s.Poll(ctx, time.Second)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprint(i), string(data))
	}
	assert.Empty(t, children(t, c, path))
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err = s.Take(short)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// Bad paths, options, waits and values too large are ErrInvalidArgument,
// and nothing is written.
func TestSimple_BadInputIsAClearErrorAndWritesNothing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	for _, p := range []string{"", "jobs", "/jobs/", "/", "/a//b"} {
		_, err := queue.NewSimple(c, p)
		assert.ErrorIs(t, err, queue.ErrInvalidArgument, "path %q", p)
	}
	_, err := queue.NewSimple(c, path, queue.WithLockPath("/x"))
	assert.ErrorIs(t, err, queue.ErrInvalidArgument, "a simple queue has no lock path")
	_, err = queue.NewSimple(c, path, queue.WithMaxItems(3))
	assert.ErrorIs(t, err, queue.ErrInvalidArgument, "nor a maximum")
	_, err = queue.NewSimple(c, path, queue.WithConcurrency(2))
	assert.ErrorIs(t, err, queue.ErrInvalidArgument, "nor a consumer")
	s := newSimple(t, c, path)
	assert.ErrorIs(t, s.Offer(ctx, make([]byte, framework.MaxRequestSize)), queue.ErrInvalidArgument)
	_, err = s.Poll(ctx, -time.Second)
	assert.ErrorIs(t, err, queue.ErrInvalidArgument)
	ok, _, err := c.Exists(ctx, path)
	require.NoError(t, err)
	assert.False(t, ok, "nothing written")
}

// An offer whose answer is lost is not repeated: it says so, and the
// queue holds it once.
func TestSimple_OfferWhoseAnswerIsLostIsUnknownAndNotRepeated(t *testing.T) {
	proxy, c := proxied(t)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSimple(t, c, path)
	require.NoError(t, s.Offer(ctx, []byte("first")))
	proxy.DropNextReply(zktest.OpMulti)
	require.ErrorIs(t, s.Offer(ctx, []byte("second")), queue.ErrOutcomeUnknown)
	assert.Len(t, children(t, c, path), 2, "applied once, never twice")
}

// A take whose delete's answer is lost cannot tell its delete from
// another taker's: it says so, and hands nothing out.
func TestSimple_TakeWhoseDeleteAnswerIsLostIsUnknown(t *testing.T) {
	proxy, c := proxied(t)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSimple(t, c, path)
	require.NoError(t, s.Offer(ctx, []byte("only")))
	proxy.DropNextReply(zktest.OpDelete)
	_, err := s.Take(ctx)
	require.ErrorIs(t, err, queue.ErrOutcomeUnknown)
	assert.Empty(t, children(t, c, path), "deleted once")
}

// A take whose ctx ends while its delete is on its way hands out the item
// the delete takes, rather than drop it: an item is lost only when the
// delete's answer is.
func TestSimple_TakeWhoseCtxEndsWhileItsDeleteIsOnItsWayReturnsTheItem(t *testing.T) {
	proxy, c := proxied(t)
	path := zktest.UniquePath(t)
	s := newSimple(t, c, path)
	require.NoError(t, s.Offer(testContext(t), []byte("only")))
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	deletes := proxy.Requests(zktest.OpDelete)
	proxy.HoldRepliesFrom(zktest.OpDelete)
	type taken struct {
		data []byte
		err  error
	}
	done := make(chan taken, 1)
	go func() { // ends when the take returns
		data, err := s.Take(ctx)
		done <- taken{data, err}
	}()
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpDelete) > deletes }, 10*time.Second, time.Millisecond)
	cancel()
	proxy.ReleaseReplies()
	got := <-done
	require.NoError(t, got.err)
	assert.Equal(t, []byte("only"), got.data)
	assert.Empty(t, children(t, c, path), "taken once")
}

// Curator's SimpleDistributedQueue and Simple share a queue: each takes
// what the other offers, in order, and peeks the same head.
func TestCurator_SimpleQueueCrossesBothWays(t *testing.T) {
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s, err := queue.NewSimple(c, path)
	require.NoError(t, err)
	require.NoError(t, s.Offer(ctx, []byte("go-1")))
	require.NoError(t, cur.SimpleOffer(ctx, path, "java-2"))
	require.NoError(t, s.Offer(ctx, []byte("go-3")))
	head, ok, err := cur.SimplePeek(ctx, path)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "go-1", head)
	item, ok, err := cur.SimplePoll(ctx, path, time.Second)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "go-1", item, "Curator takes Go's")
	data, err := s.Take(ctx)
	require.NoError(t, err)
	assert.Equal(t, "java-2", string(data), "Go takes Curator's")
	data, err = s.Peek(ctx)
	require.NoError(t, err)
	assert.Equal(t, "go-3", string(data))
	item, ok, err = cur.SimplePoll(ctx, path, time.Second)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "go-3", item)
	_, ok, err = cur.SimplePoll(ctx, path, 100*time.Millisecond)
	require.NoError(t, err)
	assert.False(t, ok)
	_, err = s.Poll(ctx, 0)
	require.ErrorIs(t, err, queue.ErrEmpty)
}

// A Poll whose time runs out while the server cannot be reached says so:
// nobody saw the queue empty.
func TestSimple_PollWhileTheServerIsUnreachableIsNotEmpty(t *testing.T) {
	proxy, c := proxied(t)
	ctx := testContext(t)
	s := newSimple(t, c, zktest.UniquePath(t))
	require.NoError(t, s.Offer(ctx, []byte("x")))
	_, err := s.Poll(ctx, 0)
	require.NoError(t, err)
	proxy.Pause()
	_, err = s.Poll(ctx, 300*time.Millisecond)
	require.ErrorIs(t, err, queue.ErrUnreachable)
	require.NotErrorIs(t, err, queue.ErrEmpty)
	proxy.Resume()
}

// Taking a backlog costs a read and a delete per item, and a listing per
// batch: a taker lists the queue when the items of its last listing are
// gone, not for every item (Curator's taker lists for every item).
func TestSimple_TakingABacklogListsOncePerBatch(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	taker := newSimple(t, connect(t, proxy.Addr()), zktest.UniquePath(t))
	offerer := newSimple(t, connect(t, zktest.Servers(t)), taker.Path())
	ctx := testContext(t)
	const n = 30
	for i := range n {
		require.NoError(t, offerer.Offer(ctx, []byte(fmt.Sprint(i))))
	}
	before := proxy.Sent()
	for i := range n {
		data, err := taker.Take(ctx)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprint(i), string(data), "in order")
	}
	sent := proxy.Sent() - before
	t.Logf("%d requests for %d items", sent, n)
	assert.LessOrEqual(t, sent, int64(2*n+1), "a read and a delete per item, one listing")
}

// A taker whose last listing names items that another taker has taken
// since lists again, and still takes in order, newer items after older.
func TestSimple_TakeAfterAnotherTakerTookItsListedItemsGoesOnInOrder(t *testing.T) {
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	a := newSimple(t, connect(t, zktest.Servers(t)), path)
	b := newSimple(t, connect(t, zktest.Servers(t)), path)
	for i := range 4 {
		require.NoError(t, b.Offer(ctx, []byte(fmt.Sprint(i))))
	}
	take := func(s *queue.Simple) string {
		data, err := s.Poll(ctx, 0)
		require.NoError(t, err)
		return string(data)
	}
	assert.Equal(t, "0", take(a))
	assert.Equal(t, "1", take(b))
	assert.Equal(t, "2", take(b))
	require.NoError(t, b.Offer(ctx, []byte("4")))
	assert.Equal(t, "3", take(a))
	assert.Equal(t, "4", take(a))
	_, err := a.Poll(ctx, 0)
	require.ErrorIs(t, err, queue.ErrEmpty)
}

// Takers that share one Simple take every item of a backlog once, and
// none waits for an item while others are still there.
func TestSimple_ConcurrentTakersOfOneQueueTakeEveryItemOnce(t *testing.T) {
	ctx := testContext(t)
	s := newSimple(t, connect(t, zktest.Servers(t)), zktest.UniquePath(t))
	const n, takers = 60, 6
	for i := range n {
		require.NoError(t, s.Offer(ctx, []byte(fmt.Sprint(i))))
	}
	got := make(chan string, n)
	var wg sync.WaitGroup
	for range takers {
		wg.Go(func() { // ends when the queue is seen empty
			for {
				data, err := s.Poll(ctx, 0)
				if err != nil {
					assert.ErrorIs(t, err, queue.ErrEmpty)
					return
				}
				got <- string(data)
			}
		})
	}
	wg.Wait()
	close(got)
	seen := map[string]int{}
	for it := range got {
		seen[it]++
	}
	assert.Len(t, seen, n, "every item")
	for it, k := range seen {
		assert.Equal(t, 1, k, "item %s once", it)
	}
}

// An offer made while the server cannot be reached, its ctx ending before
// the client reconnects, sent nothing: it fails with the ctx's error, not
// ErrOutcomeUnknown, and no item appears once the server is back.
func TestSimple_OfferWhileTheServerIsUnreachableSendsNothing(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithConnectionTimeout(200*time.Millisecond))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSimple(t, c, path)
	require.NoError(t, s.Offer(ctx, []byte("before")))
	_, err := s.Take(ctx)
	require.NoError(t, err)
	proxy.Close()
	require.Eventually(t, func() bool { return !c.IsConnected() }, 10*time.Second, 5*time.Millisecond)

	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	err = s.Offer(short, []byte("never"))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.NotErrorIs(t, err, queue.ErrOutcomeUnknown, "nothing was sent: %v", err)

	other := newSimple(t, connect(t, zktest.Servers(t)), path)
	_, err = other.Poll(ctx, 0)
	require.ErrorIs(t, err, queue.ErrEmpty, "no item was made")
}
