package mutex_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// The deadline holds when the create's answer comes and the queue
// listing's does not: the acquire ends with its timeout, not when the
// connection is finally declared dead, and leaves nothing behind.
func TestMutex_AcquireTimeoutHoldsWhenTheListingIsNotAnswered(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	observer := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	m := newMutex(t, c, path)

	proxy.HoldRepliesFrom(zktest.OpGetChildren2)
	done := make(chan error, 1)
	go func() {
		_, err := m.AcquireTimeout(ctx, 300*time.Millisecond)
		done <- err
	}()
	select {
	case err := <-done:
		require.ErrorIs(t, err, mutex.ErrUnreachable, "no answer is not contention")
		assert.NotErrorIs(t, err, mutex.ErrNotAcquired)
		// The server was reachable: the log should say the deadline was
		// short, not that the server was unreachable.
		assert.Contains(t, err.Error(), "the deadline ran out before the server answered")
		assert.NotContains(t, err.Error(), "unreachable")
	case <-time.After(10 * time.Second): // the session's own timeout is 60 s
		t.Fatal("AcquireTimeout(300ms) ignored its deadline")
	}
	proxy.ReleaseReplies()
	require.Eventually(t, func() bool { return len(children(t, observer, path)) == 0 },
		15*time.Second, 10*time.Millisecond, "the node of the abandoned acquire is deleted")
}

// With the server unreachable for the whole wait, a timed acquire says so:
// ErrUnreachable with the connection's failure, never ErrNotAcquired.
func TestMutex_UnreachableServerIsNotContention(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithConnectionTimeout(200*time.Millisecond))
	ctx := testContext(t)
	m := newMutex(t, c, zktest.UniquePath(t))
	proxy.Close()
	require.Eventually(t, func() bool { return !c.IsConnected() }, 10*time.Second, 5*time.Millisecond)

	_, err := m.AcquireTimeout(ctx, 500*time.Millisecond)
	require.ErrorIs(t, err, mutex.ErrUnreachable)
	assert.ErrorIs(t, err, framework.ErrNotConnected)
	assert.NotErrorIs(t, err, mutex.ErrNotAcquired)
	var opErr *net.OpError
	assert.ErrorAs(t, err, &opErr, "wraps the last dial error: %v", err)
}

// A timed acquire that waited on a holder it could see is not acquired.
func TestMutex_HeldLockRunsOutAsNotAcquired(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	h, err := newMutex(t, c, path).Acquire(ctx)
	require.NoError(t, err)
	_, err = newMutex(t, connect(t, zktest.Servers(t)), path).AcquireTimeout(ctx, heldTimeout)
	require.ErrorIs(t, err, mutex.ErrNotAcquired)
	assert.NotErrorIs(t, err, mutex.ErrUnreachable)
	assert.NotErrorIs(t, err, context.DeadlineExceeded)
	require.NoError(t, h.Release(ctx))
}

// The deadline holds when the create is answered in time and the wait's
// listing is not: the delete of the waiter's node, whose answer queues
// behind the unanswered listing, is waited for a second at most (not the
// 5 s of a release) and then left to the client's background deletion.
func TestMutex_AcquireTimeoutReturnsAtItsDeadlineWhenTheWaitsListingIsLate(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	observer := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	m := newMutex(t, c, path)

	// Every frame 100 ms late: the create's answer comes within the
	// deadline, too late for the create's round trip to list the queue,
	// so the wait lists it, and that listing is held.
	proxy.SetDelay(100 * time.Millisecond)
	proxy.HoldRepliesFrom(zktest.OpGetChildren2)
	done := make(chan error, 1)
	go func() {
		_, err := m.AcquireTimeout(ctx, 300*time.Millisecond)
		done <- err
	}()
	select {
	case err := <-done:
		require.ErrorIs(t, err, mutex.ErrUnreachable)
	case <-time.After(recipeCleanupTimeout - time.Second):
		t.Fatal("AcquireTimeout(300ms) waited for the clean-up of its node")
	}
	proxy.SetDelay(0)
	proxy.ReleaseReplies()
	require.Eventually(t, func() bool { return len(children(t, observer, path)) == 0 },
		15*time.Second, 10*time.Millisecond, "the node of the abandoned acquire is deleted")
}

// recipeCleanupTimeout is recipe.CleanupTimeout, the bound of a clean-up
// that a caller waits for.
const recipeCleanupTimeout = 5 * time.Second
