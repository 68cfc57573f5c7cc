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
