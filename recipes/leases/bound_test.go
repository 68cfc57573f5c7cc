package leases_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// boundMargin is what the tests allow beyond a bound for the holder's
// process to give the lease up and the next waiter to take it, on a loaded
// machine. The measured hand-over is logged.
const boundMargin = 3 * time.Second

// acquired is an acquire's outcome, passed back from a goroutine, with
// when it returned.
type acquired struct {
	lease *leases.Lease
	err   error
	at    time.Time
}

// acquireInBackground starts an acquire of s and returns its outcome's
// channel.
func acquireInBackground(ctx context.Context, s *semaphore.Semaphore) <-chan acquired {
	got := make(chan acquired, 1)
	go func() { // ends when the acquire returns, at the latest when ctx ends
		l, err := s.Acquire(ctx)
		got <- acquired{l, err, time.Now()}
	}()
	return got
}

// waitAcquired fails the test unless the acquire answers within timeout,
// and returns its lease.
func waitAcquired(t *testing.T, got <-chan acquired, timeout time.Duration, what string) acquired {
	t.Helper()
	select {
	case a := <-got:
		require.NoError(t, a.err, what)
		return a
	case <-time.After(timeout):
		t.Fatalf("%s: not acquired within %v", what, timeout)
		return acquired{}
	}
}

// assertWaiting fails the test if the acquire has answered.
func assertWaiting(t *testing.T, got <-chan acquired, what string) {
	t.Helper()
	select {
	case a := <-got:
		t.Fatalf("%s: acquired (err %v) while the lease is held", what, a.err)
	default:
	}
}

// A holder that stops renewing loses its lease once the bound passes: its
// own process deletes the node and signals ErrExpired, and the next waiter
// gets the lease within the bound plus boundMargin.
func TestBound_HolderThatStopsRenewingLosesTheLeaseToTheNextWaiter(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	const bound = time.Second
	s, err := semaphore.New(c, zktest.UniquePath(t), 1, semaphore.WithMaxHold(bound), semaphore.WithData([]byte("job-7")))
	require.NoError(t, err)

	start := time.Now()
	l, err := s.Acquire(ctx)
	require.NoError(t, err)
	assert.Equal(t, []byte("job-7"), l.Data(), "the stamp is not part of the lease's data")
	assert.Equal(t, bound, l.MaxHold())
	assert.Equal(t, leases.SessionMode, l.Mode())
	ps, err := s.Participants(ctx)
	require.NoError(t, err)
	require.Len(t, ps, 1)
	stamp, own, ok := leases.ParseStamp([]byte(ps[0].ID))
	require.True(t, ok, "the node shows its bound: %q", ps[0].ID)
	assert.Equal(t, leases.Stamp{Mode: leases.SessionMode, Bound: bound}, stamp)
	assert.Equal(t, []byte("job-7"), own)

	// The bound counts from the start of the renewal (Renew's doc): the
	// holder's deadline is never later than the server could see it.
	renewing := time.Now()
	require.NoError(t, l.Renew(ctx), "one renewal, then the holder hangs")
	renewed := time.Now()
	next := acquireInBackground(ctx, s)
	waitClosed(t, l.Lost(), bound+boundMargin, "the loss channel")
	lostAfter := time.Since(renewed)
	require.ErrorIs(t, l.Err(), leases.ErrExpired)
	require.ErrorIs(t, l.Err(), leases.ErrLost)
	a := waitAcquired(t, next, bound+boundMargin, "the next waiter")
	handOver := a.at.Sub(renewed)
	t.Logf("bound %v: lost after %v, next holder after %v from the last renewal (acquired at %v)",
		bound, lostAfter, handOver, renewed.Sub(start))
	assert.GreaterOrEqual(t, a.at.Sub(renewing), bound, "the lease is not lost before its bound")
	require.ErrorIs(t, l.Renew(ctx), leases.ErrExpired, "a renewal after the loss says so")
	require.ErrorIs(t, l.Release(ctx), leases.ErrExpired)
	require.NoError(t, a.lease.Release(ctx))
}

// A holder that renews keeps its lease across several bounds while another
// acquirer waits, and its node shows the renewals.
func TestBound_RenewingHolderKeepsTheLeaseAcrossSeveralBounds(t *testing.T) {
	t.Parallel()
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	const bound = 2 * time.Second
	s, err := semaphore.New(c, zktest.UniquePath(t), 1, semaphore.WithMaxHold(bound))
	require.NoError(t, err)
	l, err := s.Acquire(ctx)
	require.NoError(t, err)
	lost := l.Lost()
	next := acquireInBackground(ctx, s)

	renewals := 0
	for end := time.Now().Add(3 * bound); time.Now().Before(end); renewals++ {
		time.Sleep(bound / 5) // the holder's work between renewals
		require.NoError(t, l.Renew(ctx))
	}
	select {
	case <-lost:
		t.Fatalf("lost while renewed: %v", l.Err())
	default:
	}
	assertWaiting(t, next, "the other acquirer")
	ps, err := s.Participants(ctx)
	require.NoError(t, err)
	stamp, _, ok := leases.ParseStamp([]byte(ps[0].ID))
	require.True(t, ok)
	assert.Equal(t, renewals, stamp.Renewals)
	assert.WithinDuration(t, time.Now(), stamp.Renewed, time.Minute)

	require.NoError(t, l.Release(ctx))
	a := waitAcquired(t, next, 10*time.Second, "the other acquirer, after the release")
	require.NoError(t, a.lease.Release(ctx))
	require.ErrorIs(t, l.Renew(ctx), leases.ErrReleased, "a renewal after the release says so")
}

// A keeper renews while its context lives; when the context ends, it stops
// and returns the lease, and the next waiter gets it.
func TestKeeper_StopsWhenItsContextEndsAndReleasesTheLease(t *testing.T) {
	t.Parallel()
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	const bound = 2 * time.Second
	s, err := semaphore.New(c, zktest.UniquePath(t), 1, semaphore.WithMaxHold(bound))
	require.NoError(t, err)
	l, err := s.Acquire(ctx)
	require.NoError(t, err)
	jobCtx, stopJob := context.WithCancel(ctx)
	k, err := leases.Keep(jobCtx, l, l.Release)
	require.NoError(t, err)
	next := acquireInBackground(ctx, s)

	// Several renewals, as the node's stamp shows them: waited for, not
	// slept for, since a loaded machine runs the keeper late.
	require.Eventually(t, func() bool { return renewals(ctx, t, s) >= 3 }, 30*time.Second, 50*time.Millisecond,
		"renewed every third of the bound")
	require.NoError(t, l.Err(), "the keeper kept the lease")
	assertWaiting(t, next, "the other acquirer")

	stopJob()
	waitClosed(t, k.Done(), 10*time.Second, "the keeper")
	require.NoError(t, k.Err())
	require.ErrorIs(t, l.Err(), leases.ErrReleased, "the keeper released the lease")
	a := waitAcquired(t, next, 10*time.Second, "the other acquirer")
	require.NoError(t, a.lease.Release(ctx))
}

// renewals returns the renewals in the stamp of the first lease node of s,
// or -1 if it cannot tell. It uses no require, so Eventually may call it.
func renewals(ctx context.Context, t *testing.T, s *semaphore.Semaphore) int {
	ps, err := s.Participants(ctx)
	if !assert.NoError(t, err) || len(ps) == 0 {
		return -1
	}
	stamp, _, ok := leases.ParseStamp([]byte(ps[0].ID))
	if !assert.True(t, ok, "the node shows its stamp: %q", ps[0].ID) {
		return -1
	}
	return stamp.Renewals
}

// A keeper stops when its lease is lost, and says why.
func TestKeeper_StopsWhenTheLeaseIsLost(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	l := newLease(t, c, zktest.UniquePath(t), leases.WithMaxHold(time.Minute))
	k, err := leases.Keep(ctx, l, l.Release)
	require.NoError(t, err)
	require.NoError(t, c.Delete(ctx, l.Node(), -1))
	waitClosed(t, k.Done(), 10*time.Second, "the keeper")
	require.ErrorIs(t, k.Err(), leases.ErrLost)
}

// Close ends a keeper as the end of its ctx would: the permit is given
// back, and Close returns once it is, with how that went.
func TestKeeper_CloseGivesThePermitBackAndReturnsOnceItIs(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	l := newLease(t, c, zktest.UniquePath(t), leases.WithMaxHold(time.Minute))
	k, err := leases.Keep(context.Background(), l, l.Release)
	require.NoError(t, err)
	require.NoError(t, k.Close(ctx))
	waitClosed(t, k.Done(), time.Second, "Done once Close returned")
	require.ErrorIs(t, l.Err(), leases.ErrReleased, "the keeper released the lease")
	require.NoError(t, k.Err())
	require.NoError(t, k.Close(ctx), "a second Close")
}

// Bad input gives typed errors, before anything is sent.
func TestBound_BadInput(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	unbounded := newLease(t, c, zktest.UniquePath(t))
	require.ErrorIs(t, unbounded.Renew(ctx), leases.ErrInvalidArgument, "a lease without a bound")
	_, err := leases.Keep(ctx, unbounded, unbounded.Release)
	require.ErrorIs(t, err, leases.ErrInvalidArgument, "a keeper of a lease without a bound")
	_, err = leases.Keep(ctx, nil, unbounded.Release)
	require.ErrorIs(t, err, leases.ErrInvalidArgument)
	_, err = leases.Keep(ctx, unbounded, nil)
	require.ErrorIs(t, err, leases.ErrInvalidArgument)
	node := framework.Node{Path: "/l/x", Name: "x", Session: c.Session()}
	for _, d := range []time.Duration{0, -time.Second, time.Microsecond} {
		if d <= 0 {
			_, err = leases.Issue(c, node, nil, leases.WithMaxHold(d))
			require.ErrorIs(t, err, leases.ErrInvalidArgument, "max hold %v", d)
			_, err = semaphore.New(c, "/l", 1, semaphore.WithMaxHold(d))
			require.ErrorIs(t, err, leases.ErrInvalidArgument, "semaphore max hold %v", d)
		}
		_, err = leases.IssueTTL(c, node, 0, nil, d, time.Now())
		require.ErrorIs(t, err, leases.ErrInvalidArgument, "TTL %v", d)
		_, err = semaphore.New(c, "/l", 1, semaphore.WithTTL(d))
		require.ErrorIs(t, err, leases.ErrInvalidArgument, "semaphore TTL %v", d)
	}
	_, err = semaphore.New(c, "/l", 1, semaphore.WithTTL(time.Second), semaphore.WithMaxHold(time.Second))
	require.ErrorIs(t, err, leases.ErrInvalidArgument, "both bounds")
	_, err = leases.IssueTTL(c, node, 0, nil, time.Second, time.Now(), leases.WithMaxHold(time.Second))
	require.ErrorIs(t, err, leases.ErrInvalidArgument, "a TTL lease with a max hold")
	_, err = leases.IssueTTL(c, node, 0, nil, time.Second, time.Time{})
	require.ErrorIs(t, err, leases.ErrInvalidArgument, "a TTL lease without the create's send time")
	_, err = leases.Resume(ctx, c, "no/path")
	require.ErrorIs(t, err, leases.ErrInvalidArgument)
	require.NoError(t, unbounded.Err(), "a refused renewal changes nothing")
	require.NoError(t, unbounded.Release(ctx))
}
