package mutex_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// holdResult is an acquire's outcome, passed back from a goroutine.
type holdResult struct {
	hold *mutex.Hold
	err  error
	at   time.Time
}

// acquireElsewhere starts an acquire of m by an owner of its own.
func acquireElsewhere(ctx context.Context, m *mutex.Mutex) <-chan holdResult {
	got := make(chan holdResult, 1)
	go func() { // ends when the acquire returns, at the latest with ctx
		h, err := m.Acquire(ctx)
		got <- holdResult{h, err, time.Now()}
	}()
	return got
}

// An owner that stops renewing loses the lock once its bound passes: its
// own process deletes the node, the hold is lost with ErrExpired, and the
// next waiter gets the lock.
func TestMutex_HoldNotRenewedIsGivenUpToTheNextWaiter(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	const bound = time.Second
	m := newMutex(t, c, path, mutex.WithMaxHold(bound))
	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	assert.Equal(t, bound, h.MaxHold())
	renewed := time.Now() // the bound counts from within Renew: not later
	require.NoError(t, h.Renew(ctx))
	next := acquireElsewhere(ctx, newMutex(t, connect(t, zktest.Servers(t)), path))

	waitClosed(t, h.Lost(), bound+3*time.Second, "the loss channel")
	require.ErrorIs(t, h.Err(), mutex.ErrExpired)
	require.ErrorIs(t, h.Err(), mutex.ErrLost)
	select {
	case r := <-next:
		require.NoError(t, r.err)
		t.Logf("bound %v: next owner %v after the last renewal", bound, r.at.Sub(renewed))
		assert.GreaterOrEqual(t, r.at.Sub(renewed), bound)
		require.NoError(t, r.hold.Release(ctx))
	case <-time.After(10 * time.Second):
		t.Fatal("the next waiter did not get the lock")
	}
	require.ErrorIs(t, h.Renew(ctx), mutex.ErrLost, "no renewal after the loss")
	require.ErrorIs(t, h.Release(ctx), mutex.ErrLost)
}

// A keeper keeps a hold across several bounds and releases it when its
// context ends; a revocation request still reaches the holder, since
// renewals never write the lock node.
func TestMutex_KeeperKeepsTheHoldAndReleasesIt(t *testing.T) {
	t.Parallel()
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	const bound = time.Second
	revoked := make(chan struct{}, 1)
	m := newMutex(t, c, path, mutex.WithMaxHold(bound), mutex.WithRevocation(func(*mutex.Hold) { revoked <- struct{}{} }))
	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	jobCtx, stopJob := context.WithCancel(ctx)
	k, err := leases.Keep(jobCtx, h, h.Release)
	require.NoError(t, err)
	next := acquireElsewhere(ctx, newMutex(t, connect(t, zktest.Servers(t)), path))

	time.Sleep(3 * bound)
	require.NoError(t, h.Err(), "the keeper kept the hold")
	require.NoError(t, mutex.Revoke(ctx, c, h.Node()))
	waitClosed(t, revoked, 10*time.Second, "the revocation handler")
	select {
	case r := <-next:
		t.Fatalf("acquired (err %v) while the hold is kept", r.err)
	default:
	}

	stopJob()
	waitClosed(t, k.Done(), 10*time.Second, "the keeper")
	require.NoError(t, k.Err())
	select {
	case r := <-next:
		require.NoError(t, r.err)
		require.NoError(t, r.hold.Release(ctx))
	case <-time.After(10 * time.Second):
		t.Fatal("the released lock was not passed on")
	}
	require.ErrorIs(t, h.Renew(ctx), mutex.ErrReleased, "no renewal after the release")
}

func TestMutex_BoundBadInput(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	for _, d := range []time.Duration{0, -time.Second} {
		_, err := mutex.New(c, "/lock", mutex.WithMaxHold(d))
		require.ErrorIs(t, err, mutex.ErrInvalidArgument, "%v", d)
	}
	h, err := newMutex(t, c, zktest.UniquePath(t)).Acquire(ctx)
	require.NoError(t, err)
	require.ErrorIs(t, h.Renew(ctx), mutex.ErrInvalidArgument, "a hold without a bound")
	_, err = leases.Keep(ctx, h, h.Release)
	require.ErrorIs(t, err, mutex.ErrInvalidArgument)
	require.NoError(t, h.Release(ctx))
}
