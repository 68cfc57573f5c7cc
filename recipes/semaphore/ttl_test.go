package semaphore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// A server without TTL support refuses the mode with a typed error, and
// the refused acquire leaves nothing behind.
func TestSemaphore_TTLOnAServerWithoutTTLGivesTheTypedError(t *testing.T) {
	t.Parallel()
	server := zktest.NewServer(t, zktesting.WithoutTTL())
	c := connect(t, server.Addr())
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 2, semaphore.WithTTL(10*time.Second))

	l, err := s.Acquire(ctx)
	require.ErrorIs(t, err, leases.ErrTTLUnsupported)
	t.Log(err)
	assert.Nil(t, l)
	assert.Equal(t, 0, nodeCount(t, c, path), "no guard and no lease node is left")
}

// ttlMargin is what the tests allow beyond a TTL lease's bound (its TTL
// plus the test server's container check interval, 1 s) for the server to
// reap the node and the next waiter to take the lease, on a loaded machine.
// The measured hand-over is logged.
const ttlMargin = 5 * time.Second

// A TTL lease outlives the session of its holder: a restarted holder
// resumes it by its node's name, the earlier holder can no longer renew
// it (nor delete it), and once the new holder stops renewing, the server
// reclaims it and the next waiter gets it, within the TTL plus the check
// interval (1 s on a server of zkserver's, which this test starts so that
// the bound does not depend on ZK_SERVERS).
func TestSemaphore_TTLLeaseSurvivesItsHoldersSessionAndIsReclaimed(t *testing.T) {
	t.Parallel()
	servers := zktest.NewServer(t).Addr()
	proxy := zktest.NewProxy(t, servers)
	first := connect(t, proxy.Addr(), framework.WithSessionTimeout(2*time.Second))
	observer := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	const ttl = 8 * time.Second
	l, err := newSemaphore(t, first, path, 1, semaphore.WithTTL(ttl), semaphore.WithData([]byte("job-9"))).Acquire(ctx)
	require.NoError(t, err)
	assert.Equal(t, leases.TTLMode, l.Mode())
	assert.Equal(t, []byte("job-9"), l.Data())
	name := zkpath.Base(l.Node())
	assert.Regexp(t, leaseNode, name)
	data, stat, err := observer.Get(ctx, l.Node())
	require.NoError(t, err)
	assert.Zero(t, stat.EphemeralOwner, "not an ephemeral node")
	stamp, own, ok := leases.ParseStamp(data)
	require.True(t, ok, "%q", data)
	assert.Equal(t, leases.Stamp{Mode: leases.TTLMode, Bound: ttl}, stamp)
	assert.Equal(t, []byte("job-9"), own)

	// The first holder's process hangs as a whole: its session expires.
	session := first.Session()
	proxy.Pause()
	waitClosed(t, session.Lost(), 20*time.Second, "the first holder's session")
	ok, _, err = observer.Exists(ctx, l.Node())
	require.NoError(t, err)
	require.True(t, ok, "the lease outlives its holder's session")

	// The job restarts in a new process and resumes its lease.
	second := connect(t, servers)
	resumed, err := newSemaphore(t, second, path, 1, semaphore.WithTTL(ttl)).Resume(ctx, name)
	require.NoError(t, err)
	assert.Equal(t, l.Node(), resumed.Node())
	assert.Equal(t, []byte("job-9"), resumed.Data())
	assert.Equal(t, ttl, resumed.MaxHold())

	// The first process comes back: it has lost the lease and cannot take
	// it back, and giving it up does not delete the second's node.
	proxy.Resume()
	waitClosed(t, l.Lost(), 20*time.Second, "the first holder's loss, seen from its new session")
	require.ErrorIs(t, l.Err(), leases.ErrTakenOver)
	require.ErrorIs(t, l.Renew(ctx), leases.ErrLost)
	require.ErrorIs(t, l.Release(ctx), leases.ErrLost)
	ok, _, err = observer.Exists(ctx, l.Node())
	require.NoError(t, err)
	require.True(t, ok, "the second holder's lease is untouched")
	require.NoError(t, resumed.Err())

	// The second holder renews once more, then its process dies.
	renewed := time.Now() // before the server's write, which the TTL counts from
	require.NoError(t, resumed.Renew(ctx))
	require.NoError(t, second.Close())
	next := make(chan result[*leases.Lease], 1)
	go func() { // ends when the acquire returns, at the latest with ctx
		l, err := newSemaphore(t, observer, path, 1, semaphore.WithTTL(ttl)).Acquire(ctx)
		next <- result[*leases.Lease]{l, err}
	}()
	select {
	case r := <-next:
		require.NoError(t, r.err)
		handOver := time.Since(renewed)
		t.Logf("TTL %v, check interval 1 s: next holder %v after the last renewal", ttl, handOver)
		assert.GreaterOrEqual(t, handOver, ttl, "the server keeps the node for its TTL")
		require.NoError(t, r.v.Release(ctx))
	case <-time.After(ttl + time.Second + ttlMargin):
		t.Fatal("the lease was not reclaimed within its bound")
	}
}

// A TTL lease outlives its session, and so does its fencing token: read
// for the first time in the next session, it is the node's creation zxid.
func TestSemaphore_TTLLeaseFencingTokenInALaterSession(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(2*time.Second))
	ctx := testContext(t)
	l, err := newSemaphore(t, c, zktest.UniquePath(t), 1, semaphore.WithTTL(time.Minute)).Acquire(ctx)
	require.NoError(t, err)
	session := c.Session()
	proxy.Pause()
	waitClosed(t, session.Lost(), 20*time.Second, "the first session's loss")
	proxy.Resume()
	require.NoError(t, c.WaitConnected(ctx))
	token, err := l.FencingToken(ctx)
	require.NoError(t, err)
	_, stat, err := c.Get(ctx, l.Node())
	require.NoError(t, err)
	assert.GreaterOrEqual(t, token, stat.Czxid, "the grant is not below the node's creation")
	require.NoError(t, l.Release(ctx))
}

// A keeper keeps a TTL lease across several TTLs; when its context ends,
// it returns the lease and the next waiter gets it.
func TestSemaphore_TTLLeaseKeptByAKeeper(t *testing.T) {
	t.Parallel()
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	const ttl = 2 * time.Second
	s := newSemaphore(t, c, path, 1, semaphore.WithTTL(ttl))
	l, err := s.Acquire(ctx)
	require.NoError(t, err)
	jobCtx, stopJob := context.WithCancel(ctx)
	k, err := leases.Keep(jobCtx, l, l.Release)
	require.NoError(t, err)
	next := make(chan result[*leases.Lease], 1)
	go func() { // ends when the acquire returns, at the latest with ctx
		l, err := s.Acquire(ctx)
		next <- result[*leases.Lease]{l, err}
	}()

	time.Sleep(5 * ttl / 2) // several TTLs, with the server reaping every second
	require.NoError(t, l.Err())
	select {
	case r := <-next:
		t.Fatalf("acquired (err %v) while the keeper holds the lease", r.err)
	default:
	}
	_, stat, err := c.Get(ctx, l.Node())
	require.NoError(t, err)
	assert.GreaterOrEqual(t, stat.Version, int32(3), "renewed every third of the TTL")

	stopJob()
	waitClosed(t, k.Done(), 10*time.Second, "the keeper")
	require.NoError(t, k.Err())
	select {
	case r := <-next:
		require.NoError(t, r.err)
		require.NoError(t, r.v.Release(ctx))
	case <-time.After(10 * time.Second):
		t.Fatal("the released lease was not passed on")
	}
	assert.Equal(t, 0, nodeCount(t, c, path))
}

// Resume refuses bad input before anything is sent, and says ErrLost for
// a lease that is gone.
func TestSemaphore_ResumeBadInputAndGoneLease(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	_, err := newSemaphore(t, c, path, 1).Resume(ctx, "_c_0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-lease-0000000001")
	require.ErrorIs(t, err, semaphore.ErrInvalidArgument, "a semaphore without TTL leases")
	s := newSemaphore(t, c, path, 1, semaphore.WithTTL(time.Minute))
	for _, name := range []string{"", "a/b", "lease-0000000001", "_c_0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-lock-0000000001"} {
		_, err = s.Resume(ctx, name)
		require.ErrorIs(t, err, semaphore.ErrInvalidArgument, "%q", name)
	}
	l, err := s.Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, l.Release(ctx))
	_, err = s.Resume(ctx, zkpath.Base(l.Node()))
	require.ErrorIs(t, err, semaphore.ErrLost, "a returned lease cannot be resumed")
	require.ErrorIs(t, l.Renew(ctx), leases.ErrReleased)
}

// A TTL lease counts for Curator's InterProcessSemaphoreV2 like any lease.
func TestCurator_CountsTTLLeases(t *testing.T) {
	servers := zktest.Servers(t)
	cur := zktest.StartCurator(t, servers)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	l, err := newSemaphore(t, c, path, 1, semaphore.WithTTL(time.Minute)).Acquire(ctx)
	require.NoError(t, err)
	_, ok, err := cur.SemAcquire(ctx, "a", path, 1, 1, 300*time.Millisecond)
	require.NoError(t, err)
	assert.False(t, ok, "Curator sees the permit taken")
	require.NoError(t, l.Release(ctx))
	_, ok, err = cur.SemAcquire(ctx, "a", path, 1, 1, 10*time.Second)
	require.NoError(t, err)
	assert.True(t, ok, "and free once released")
	require.NoError(t, cur.SemRelease(ctx, "a"))
}

// A TTL acquire that times out while it waits leaves no lease node behind.
func TestSemaphore_TTLTimedOutAcquireLeavesNothing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 1, semaphore.WithTTL(time.Minute))
	held, err := s.Acquire(ctx)
	require.NoError(t, err)
	_, err = s.AcquireTimeout(ctx, heldTimeout)
	require.ErrorIs(t, err, semaphore.ErrNotAcquired)
	assert.Equal(t, []string{zkpath.Base(held.Node())}, children(t, c, path+"/leases"))
	require.NoError(t, held.Release(ctx))
	assert.Equal(t, 0, nodeCount(t, c, path))
}

// A TTL lease whose holder stops renewing while its process lives is given
// up by that process at the TTL, on its own clock: the node is deleted
// long before this server (whose container check runs every 10 minutes)
// would reap it, and the next waiter gets the lease.
func TestSemaphore_TTLLeaseNotRenewedIsGivenUpByItsHolder(t *testing.T) {
	t.Parallel()
	server := zktest.NewServer(t, zktesting.WithJavaOpts("-Dznode.container.checkIntervalMs=600000"))
	c := connect(t, server.Addr())
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	const ttl = time.Second
	s := newSemaphore(t, c, path, 1, semaphore.WithTTL(ttl))
	l, err := s.Acquire(ctx)
	require.NoError(t, err)
	start := time.Now()
	next := make(chan result[*leases.Lease], 1)
	go func() { // ends when the acquire returns, at the latest with ctx
		l, err := s.Acquire(ctx)
		next <- result[*leases.Lease]{l, err}
	}()
	waitClosed(t, l.Lost(), ttl+ttlMargin, "the loss channel")
	require.ErrorIs(t, l.Err(), leases.ErrExpired)
	select {
	case r := <-next:
		require.NoError(t, r.err)
		t.Logf("TTL %v: next holder %v after the acquire", ttl, time.Since(start))
		require.NoError(t, r.v.Release(ctx))
	case <-time.After(ttlMargin):
		t.Fatal("the lease given up was not passed on")
	}
	require.ErrorIs(t, l.Renew(ctx), leases.ErrExpired, "no renewal after the loss")
}

// A renewal abandoned when its context ended may still be applied: the
// next renewal recognises the holder's own write instead of taking it for
// another holder's.
func TestSemaphore_TTLRenewalAfterAnAbandonedOneKeepsTheLease(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
	observer := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	l, err := newSemaphore(t, c, path, 1, semaphore.WithTTL(time.Minute)).Acquire(ctx)
	require.NoError(t, err)

	proxy.HoldReplies()
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	err = l.Renew(short)
	cancel()
	require.Error(t, err)
	require.NotErrorIs(t, err, leases.ErrLost, "an unanswered renewal is not a loss")
	require.Eventually(t, func() bool {
		_, stat, err := observer.Get(ctx, l.Node())
		return assert.NoError(t, err) && stat.Version == 1
	}, 10*time.Second, 10*time.Millisecond, "the abandoned write was applied")
	proxy.ReleaseReplies()

	require.NoError(t, l.Renew(ctx), "the holder's own earlier write is no other holder's")
	require.NoError(t, l.Err())
	_, stat, err := observer.Get(ctx, l.Node())
	require.NoError(t, err)
	assert.Equal(t, int32(2), stat.Version)
	require.NoError(t, l.Release(ctx))
	assert.Empty(t, children(t, observer, path+"/leases"))
}
