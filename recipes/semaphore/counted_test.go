package semaphore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

func TestCounted_RaisingTheCountWakesAWaiter(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	count := newCount(t, c, path+"-count", 1)
	s, err := semaphore.NewCounted(c, path, count)
	require.NoError(t, err)
	held, err := s.Acquire(ctx)
	require.NoError(t, err)

	waiter, err := semaphore.NewCounted(other, path, newCount(t, other, path+"-count", 1))
	require.NoError(t, err)
	got := make(chan result[*leases.Lease], 1)
	go func() { // ends when the acquire returns: after the raise, or when ctx ends
		l, err := waiter.Acquire(ctx)
		got <- result[*leases.Lease]{l, err}
	}()
	require.Eventually(t, func() bool { return len(children(t, c, path+"/leases")) == 2 }, 10*time.Second, 10*time.Millisecond)
	select {
	case r := <-got:
		t.Fatalf("a second lease was granted with a count of 1: %+v", r)
	default:
	}
	require.NoError(t, count.Set(ctx, 2))
	select {
	case r := <-got:
		require.NoError(t, r.err)
		require.NoError(t, r.v.Release(ctx))
	case <-time.After(10 * time.Second):
		t.Fatal("raising the count did not wake the waiter")
	}
	require.NoError(t, held.Release(ctx))
}

// With a shared maximum, asking for more leases than the count allows
// waits for the count to rise instead of failing: the count may change.
func TestCounted_AskingAboveTheCountWaitsForARaise(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	count := newCount(t, c, path+"-count", 0)
	s, err := semaphore.NewCounted(c, path, count)
	require.NoError(t, err)

	_, err = s.AcquireNTimeout(ctx, 2, heldTimeout)
	require.ErrorIs(t, err, semaphore.ErrNotAcquired, "a count of 0 lets nobody in")
	got := make(chan result[[]*leases.Lease], 1)
	go func() { // ends when the acquire returns: after the raise, or when ctx ends
		ls, err := s.AcquireN(ctx, 2)
		got <- result[[]*leases.Lease]{ls, err}
	}()
	require.Eventually(t, func() bool { return len(children(t, c, path+"/leases")) == 2 }, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, count.Set(ctx, 1))
	select {
	case r := <-got:
		t.Fatalf("two leases granted with a count of 1: %+v", r)
	case <-time.After(200 * time.Millisecond): // a wrong grant would come within a round trip or two
	}
	require.NoError(t, count.Set(ctx, 2))
	select {
	case r := <-got:
		require.NoError(t, r.err)
		assert.Len(t, r.v, 2)
		require.NoError(t, leases.ReleaseAll(ctx, r.v...))
	case <-time.After(10 * time.Second):
		t.Fatal("raising the count to 2 did not wake the waiter")
	}
	assert.Equal(t, 0, nodeCount(t, c, path))
}

// Lowering the count takes no lease back, but holds back acquirers until
// enough leases are released.
func TestCounted_LoweringTheCountHoldsBackNewcomers(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	count := newCount(t, c, path+"-count", 2)
	s, err := semaphore.NewCounted(c, path, count)
	require.NoError(t, err)
	ls, err := s.AcquireN(ctx, 2)
	require.NoError(t, err)
	require.NoError(t, count.Set(ctx, 1))
	assert.NoError(t, ls[0].Err(), "held leases stay held")

	require.NoError(t, ls[0].Release(ctx))
	_, err = s.AcquireTimeout(ctx, heldTimeout)
	require.ErrorIs(t, err, semaphore.ErrNotAcquired, "one lease held, count 1")
	require.NoError(t, ls[1].Release(ctx))
	l, err := s.AcquireTimeout(ctx, 5*time.Second)
	require.NoError(t, err)
	require.NoError(t, l.Release(ctx))
}

// A waiter sets one watch on the leases directory at a time: a change of
// the count is judged against the listing its outstanding watch keeps
// current, not by listing (and watching) the directory again, so watches
// do not pile up on it while the count changes (issue 20).
func TestCounted_CountChangesDoNotPileWatchesOnTheLeases(t *testing.T) {
	const changes = 5
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, servers)
	other := connect(t, proxy.Addr())
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	count := newCount(t, c, path+"-count", 1)
	s, err := semaphore.NewCounted(c, path, count)
	require.NoError(t, err)
	held, err := s.Acquire(ctx)
	require.NoError(t, err)

	waiter, err := semaphore.NewCounted(other, path, newCount(t, other, path+"-count", 1))
	require.NoError(t, err)
	got := make(chan result[*leases.Lease], 1)
	go func() { // ends when the acquire returns: after the raise, or when ctx ends
		l, err := waiter.Acquire(ctx)
		got <- result[*leases.Lease]{l, err}
	}()
	require.Eventually(t, func() bool { return len(children(t, c, path+"/leases")) == 2 }, 10*time.Second, 10*time.Millisecond)
	// The waiter has read the count and listed the leases once: two
	// listings in all, as its guard mutex's acquire lists the guard's
	// directory first.
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpGetChildren2) >= 2 }, 10*time.Second, 10*time.Millisecond)
	// The changes go through the waiter's own connection, behind its
	// reads: a change sent directly could overtake the read that sets the
	// waiter's next watch, and then no watch would fire for it.
	setter := newCount(t, other, path+"-count", 1)
	listings, reads := proxy.Requests(zktest.OpGetChildren2), proxy.Requests(zktest.OpGetData)
	for i := range changes {
		require.NoError(t, setter.Set(ctx, 1)) // a change, still no room
		// The waiter sees it: it reads the count again.
		require.Eventually(t, func() bool { return proxy.Requests(zktest.OpGetData) > reads+int64(i) },
			10*time.Second, 10*time.Millisecond)
	}
	require.NoError(t, count.Set(ctx, 2))
	select {
	case r := <-got:
		require.NoError(t, r.err)
		require.NoError(t, r.v.Release(ctx))
	case <-time.After(10 * time.Second):
		t.Fatal("raising the count did not wake the waiter")
	}
	assert.Equal(t, listings, proxy.Requests(zktest.OpGetChildren2), "the leases were listed again on a count change")
	require.NoError(t, held.Release(ctx))
}
