package semaphore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

const shortSession = 2 * time.Second

func TestFault_HolderSessionExpiresThenAWaiterGetsTheLease(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	holderClient := connect(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	waiterClient := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	held, err := newSemaphore(t, holderClient, path, 1).Acquire(ctx)
	require.NoError(t, err)
	lost := held.Lost()

	waiter := newSemaphore(t, waiterClient, path, 1)
	got := make(chan result[*leases.Lease], 1)
	go func() { // ends when the acquire returns: once the holder's session expired
		l, err := waiter.Acquire(ctx)
		got <- result[*leases.Lease]{l, err}
	}()
	require.Eventually(t, func() bool { return len(children(t, waiterClient, path+"/leases")) == 2 }, 10*time.Second, 10*time.Millisecond)

	proxy.Pause()
	waitClosed(t, lost, 10*time.Second, "the holder's loss channel")
	signalled := time.Now()
	require.ErrorIs(t, held.Err(), semaphore.ErrLost)
	select {
	case r := <-got:
		require.NoError(t, r.err)
		assert.True(t, time.Now().After(signalled), "the holder was told before the waiter got the lease")
		assert.Equal(t, []string{zkpath.Base(r.v.Node())}, children(t, waiterClient, path+"/leases"), "the holder's lease node is gone")
		require.NoError(t, r.v.Release(ctx))
	case <-time.After(20 * time.Second):
		t.Fatal("the waiter did not get the lease after the holder's session expired")
	}
	proxy.Resume()
	require.ErrorIs(t, held.Release(ctx), semaphore.ErrLost, "returning a lost lease says so")
	require.Eventually(t, func() bool { return nodeCount(t, waiterClient, path) == 0 }, 15*time.Second, 20*time.Millisecond)
}

func TestFault_WaiterSessionLostFailsTheAcquireWithoutOrphans(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	holderClient := connect(t, zktest.Servers(t))
	waiterClient := connect(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	held, err := newSemaphore(t, holderClient, path, 1).Acquire(ctx)
	require.NoError(t, err)

	s := newSemaphore(t, waiterClient, path, 1)
	got := make(chan error, 1)
	go func() { // ends when the acquire fails with the waiter's session
		_, err := s.Acquire(ctx)
		got <- err
	}()
	require.Eventually(t, func() bool { return len(children(t, holderClient, path+"/leases")) == 2 }, 10*time.Second, 10*time.Millisecond)
	proxy.Pause()
	select {
	case err := <-got:
		require.ErrorIs(t, err, semaphore.ErrLost)
	case <-time.After(20 * time.Second):
		t.Fatal("the waiter did not fail when its session was lost")
	}
	proxy.Resume()
	require.Eventually(t, func() bool {
		return assert.ObjectsAreEqual([]string{zkpath.Base(held.Node())}, children(t, holderClient, path+"/leases"))
	}, 15*time.Second, 20*time.Millisecond, "the waiter's lease node died with its session")
	require.NoError(t, held.Release(ctx))
	l, err := s.AcquireTimeout(ctx, 10*time.Second)
	require.NoError(t, err, "the waiter's client works in its new session")
	require.NoError(t, l.Release(ctx))
}

// The answers to the guard's create and to the lease's create are lost
// (the proxy cuts the connection after forwarding each): the acquire must
// still hold exactly one lease node, its own, and leave nothing on release.
func TestFault_LostCreateAnswersLeaveNoDuplicateNorOrphan(t *testing.T) {
	rounds := 20
	if testing.Short() {
		rounds = 5
	}
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second),
		framework.WithRetryPolicy(framework.RetryForever(5*time.Millisecond)))
	observer := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 2)
	for i := range rounds {
		proxy.DropNextCreateReply() // the guard's node
		proxy.DropNextCreateReply() // the lease node
		l, err := s.Acquire(ctx)
		require.NoError(t, err, "round %d", i)
		assert.Equal(t, []string{zkpath.Base(l.Node())}, children(t, observer, path+"/leases"), "round %d", i)
		require.NoError(t, l.Release(ctx))
		assert.Equal(t, 0, nodeCount(t, observer, path), "round %d", i)
	}
	assert.Equal(t, 2*rounds, proxy.DroppedReplies())
}

// The answer to AcquireN's transaction is lost: the client's retry runs it
// again, creating a second set of nodes. The duplicates are recognised by
// their protection ids and deleted.
func TestFault_LostTransactionAnswerLeavesNoDuplicate(t *testing.T) {
	rounds := 10
	if testing.Short() {
		rounds = 3
	}
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second),
		framework.WithRetryPolicy(framework.RetryForever(5*time.Millisecond)))
	observer := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 3)
	for i := range rounds {
		proxy.DropNextCreateReply() // the guard's node
		proxy.DropNextCreateReply() // the transaction
		ls, err := s.AcquireN(ctx, 3)
		require.NoError(t, err, "round %d", i)
		names := make([]string, len(ls))
		for j, l := range ls {
			names[j] = zkpath.Base(l.Node())
		}
		assert.ElementsMatch(t, names, children(t, observer, path+"/leases"), "round %d: only our three", i)
		require.NoError(t, leases.ReleaseAll(ctx, ls...))
		assert.Equal(t, 0, nodeCount(t, observer, path), "round %d", i)
	}
	assert.Equal(t, 2*rounds, proxy.DroppedReplies())
}

// The connection is cut again and again while acquirers create their lease
// nodes and count: whatever each acquire's outcome, no orphan lease or
// guard node remains, and the semaphore is not deadlocked.
func TestFault_CutsDuringAcquiresLeaveNoOrphan(t *testing.T) {
	t.Parallel()
	attempts := 60
	if testing.Short() {
		attempts = 15
	}
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second),
		framework.WithRetryPolicy(framework.RetryNTimes(3, 5*time.Millisecond)))
	observer := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	held, err := newSemaphore(t, observer, path, 2).Acquire(ctx)
	require.NoError(t, err)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // the fault: ends when stop is closed
		tick := time.NewTicker(23 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				proxy.Cut()
			}
		}
	})
	s := newSemaphore(t, c, path, 2)
	proxy.SetDelay(time.Millisecond) // widen the windows the cuts fall into
	outcomes := map[bool]int{}
	for i := range attempts {
		ls, err := s.AcquireNTimeout(ctx, 1+i%2, 100*time.Millisecond)
		outcomes[err == nil]++
		if err == nil {
			_ = leases.ReleaseAll(ctx, ls...) // may fail with the cut: the nodes go in the background
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("acquired %d times, failed %d times", outcomes[true], outcomes[false])
	var leaseNodes, lockNodes []string
	require.Eventually(t, func() bool {
		leaseNodes, lockNodes = children(t, observer, path+"/leases"), children(t, observer, path+"/locks")
		return assert.ObjectsAreEqual([]string{zkpath.Base(held.Node())}, leaseNodes) && len(lockNodes) == 0
	}, 20*time.Second, 20*time.Millisecond, "only the holder's lease %s remains: leases %v, locks %v", zkpath.Base(held.Node()), &leaseNodes, &lockNodes)
	require.NoError(t, held.Release(ctx))
	ls, err := s.AcquireNTimeout(context.Background(), 2, 10*time.Second)
	require.NoError(t, err, "not deadlocked")
	require.NoError(t, leases.ReleaseAll(ctx, ls...))
}

// Every request is slowed down, and acquires time out at every step in
// turn: waiting for the guard, in the lease transaction, counting, in the
// guard's release. Whatever the step, nothing is left behind.
func TestFault_TimeoutsAtEveryStepLeaveNothing(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	observer := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 2)
	warm, err := s.AcquireN(ctx, 2) // make the directories
	require.NoError(t, err)
	require.NoError(t, leases.ReleaseAll(ctx, warm...))

	const step = 20 * time.Millisecond
	proxy.SetDelay(step / 2) // each request takes at least one step
	acquired := 0
	for i := range 16 {
		ls, err := s.AcquireNTimeout(ctx, 1+i%2, time.Duration(i)*step/2)
		if err == nil {
			acquired++
			require.NoError(t, leases.ReleaseAll(ctx, ls...))
			continue
		}
		// Free leases behind a slow link: the time runs out before an
		// answer, which is no proof of contention.
		require.ErrorIs(t, err, semaphore.ErrUnreachable, "timeout %d", i)
		// The attempt's nodes are deleted in the background: gone before
		// the next, which would otherwise see them as contention.
		require.Eventually(t, func() bool { return nodeCount(t, observer, path) == 0 }, 20*time.Second, 5*time.Millisecond,
			"attempt %d left its nodes", i)
	}
	t.Logf("%d of 16 acquires got their leases in time", acquired)
	proxy.SetDelay(0)
	require.Eventually(t, func() bool { return nodeCount(t, observer, path) == 0 }, 20*time.Second, 20*time.Millisecond,
		"no lease or guard node left")
}

// The guard's release can wait through a partition until the session is
// lost; the leases counted before it went with the session, and others may
// hold them by now. Acquire then fails with ErrLost instead of handing out
// a lease of a lost session (found by the chaos run).
func TestFault_SessionLostWhileReleasingTheGuardIsNoLease(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	observer := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 1)
	warm, err := s.Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, warm.Release(ctx))

	deletes := proxy.Requests(zktest.OpDelete)
	proxy.HoldRepliesFrom(zktest.OpDelete) // the guard's release gets no answer
	got := make(chan result[*leases.Lease], 1)
	go func() { // ends when the acquire returns
		l, err := s.Acquire(ctx)
		got <- result[*leases.Lease]{l, err}
	}()
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpDelete) > deletes },
		10*time.Second, time.Millisecond, "the guard's release was not sent")
	proxy.Pause()
	var r result[*leases.Lease]
	select {
	case r = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("the acquire never returned")
	}
	proxy.ReleaseReplies()
	proxy.Resume()
	require.ErrorIs(t, r.err, semaphore.ErrLost, "a lease of a lost session was handed out")
	assert.Nil(t, r.v)
	require.Eventually(t, func() bool { return nodeCount(t, observer, path) == 0 }, 20*time.Second, 20*time.Millisecond,
		"no lease or guard node left")
}

// The deadline holds when the lease node's create is answered in time and
// a listing after it is not: the delete of the guard's node, whose answer
// queues behind the unanswered listing, is waited for a second at most
// and then left to the client's background deletion.
func TestFault_AcquireTimeoutReturnsAtItsDeadlineWhenAListingIsLate(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	observer := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 1)
	warm, err := s.Acquire(ctx) // the paths exist: the creates ask no more
	require.NoError(t, err)
	require.NoError(t, warm.Release(ctx))

	proxy.SetDelay(100 * time.Millisecond)
	proxy.HoldRepliesFrom(zktest.OpGetChildren2)
	done := make(chan error, 1)
	go func() { // ends when the acquire returns
		_, err := s.AcquireTimeout(ctx, 500*time.Millisecond)
		done <- err
	}()
	select {
	case err := <-done:
		require.ErrorIs(t, err, semaphore.ErrUnreachable)
	case <-time.After(4 * time.Second): // a clean-up waited for is bounded by 5 s
		t.Fatal("AcquireTimeout(500ms) waited for the clean-up of its nodes")
	}
	proxy.SetDelay(0)
	proxy.ReleaseReplies()
	require.Eventually(t, func() bool { return nodeCount(t, observer, path) == 0 }, 20*time.Second, 20*time.Millisecond,
		"no lease or guard node left")
}
