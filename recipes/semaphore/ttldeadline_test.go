package semaphore_test

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// opCreateTTL is the request type of a create of a TTL node.
const opCreateTTL int32 = 21

// The deadline of a new TTL lease counts from before its create was sent,
// as the server's TTL counts from the node's creation, not from the
// create's answer: a holder whose answer came late never believes it holds
// while the server can reap the node and hand the permit on. The test
// server reaps every second.
func TestSemaphore_TTLLeaseDeadlineCountsFromBeforeTheCreate(t *testing.T) {
	t.Parallel()
	t.Run("late answer", func(t *testing.T) { testTTLDeadline(t, false) })
	t.Run("lost answer", func(t *testing.T) { testTTLDeadline(t, true) })
}

// testTTLDeadline holds the answer to a TTL lease's create back; with
// lose, the answer is lost with its connection, and the create's node is
// found later by its protection id.
func testTTLDeadline(t *testing.T, lose bool) {
	servers := zktest.NewServer(t).Addr()
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
	observer := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	const ttl, late = 2 * time.Second, 1500 * time.Millisecond

	// A lasting leases directory, so that the first TTL create is the one
	// that makes the node (the hold begins at its answer).
	_, err := observer.Create(ctx, path, nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	_, err = observer.Create(ctx, path+"/leases", nil, framework.Persistent)
	require.NoError(t, err)

	got := acquireHeldAtItsCreate(t, proxy, c, observer, path, ttl, 1)
	time.Sleep(late) // the create's answer is late by this much
	if lose {
		proxy.Cut()
	}
	proxy.ReleaseReplies()
	var first *leases.Lease
	var stat *zk.Stat
	select {
	case r := <-got:
		require.NoError(t, r.err)
		first = r.v
	case <-time.After(20 * time.Second):
		t.Fatal("the acquire did not return")
	}
	_, stat, err = observer.Get(ctx, first.Node())
	require.NoError(t, err)
	// The server counts the TTL from the node's last write: its create, or
	// a renewal that the acquire sent since the answer came late.
	written := time.UnixMilli(stat.Mtime).Add(time.Millisecond) // the server's clock, in ms
	assert.False(t, first.Deadline().After(written.Add(ttl)),
		"deadline %v is later than the last write %v + TTL", first.Deadline(), written)

	// The holder does not renew: the next waiter gets the permit once the
	// server (or the holder) frees it, and by then the holder knows.
	r, err := newSemaphore(t, observer, path, 1, semaphore.WithTTL(ttl)).Acquire(ctx)
	require.NoError(t, err)
	require.ErrorIs(t, first.Err(), leases.ErrExpired, "the first holder must not believe it holds")
	require.NoError(t, r.Release(ctx))
}

// A TTL lease node that waits for room is renewed by its deadline, which
// counts from before its create: one whose create was answered late is
// renewed at once, not a third of the TTL after the answer, so it neither
// expires nor is created again while it waits longer than its TTL.
func TestSemaphore_TTLLeaseAnsweredLateIsKeptWhileItWaits(t *testing.T) {
	t.Parallel()
	servers := zktest.NewServer(t).Addr()
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
	observer := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	// The answer comes when a quarter of the TTL is left: a renewal a
	// third of the TTL after it comes too late, one at once in time with a
	// margin for a loaded machine.
	const ttl, late = 6 * time.Second, 4500 * time.Millisecond
	holder, err := newSemaphore(t, observer, path, 1, semaphore.WithTTL(ttl)).Acquire(ctx)
	require.NoError(t, err)
	k, err := leases.Keep(ctx, holder, holder.Release)
	require.NoError(t, err)

	got := acquireHeldAtItsCreate(t, proxy, c, observer, path, ttl, 2)
	time.Sleep(late) // the create's answer is late by this much
	proxy.ReleaseReplies()
	time.Sleep(ttl) // the wait for room outlasts the waiter's TTL
	require.NoError(t, k.Close(ctx), "the holder gives the permit back")

	var waiter *leases.Lease
	select {
	case r := <-got:
		require.NoError(t, r.err)
		waiter = r.v
	case <-time.After(20 * time.Second):
		t.Fatal("the acquire did not return")
	}
	assert.EqualValues(t, 1, proxy.Requests(opCreateTTL), "the waiting node was kept, not created again")
	require.NoError(t, waiter.Err())
	require.NoError(t, waiter.Release(ctx))
}

// acquireHeldAtItsCreate starts an acquire of a one-lease TTL semaphore
// on c whose create's answer proxy holds, and returns once the create has
// reached the server (queued lease nodes under path, the new one
// included); the acquire's result comes on the channel once the test
// releases the replies.
func acquireHeldAtItsCreate(t *testing.T, proxy *zktest.Proxy, c, observer *framework.Client, path string, ttl time.Duration, queued int) <-chan result[*leases.Lease] {
	t.Helper()
	ctx := testContext(t)
	proxy.HoldRepliesFrom(opCreateTTL)
	got := make(chan result[*leases.Lease], 1)
	go func() { // ends when the acquire returns, at the latest with ctx
		l, err := newSemaphore(t, c, path, 1, semaphore.WithTTL(ttl)).Acquire(ctx)
		got <- result[*leases.Lease]{l, err}
	}()
	require.Eventually(t, func() bool { return len(children(t, observer, path+"/leases")) == queued },
		10*time.Second, 5*time.Millisecond, "the create reached the server")
	return got
}
