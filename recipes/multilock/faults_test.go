package multilock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/multilock"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// With the server unreachable from the start, a timed acquire says so:
// ErrUnreachable, never ErrNotAcquired, and nothing is held.
func TestMultiLock_UnreachableServerIsNotContention(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithConnectionTimeout(200*time.Millisecond))
	ctx := testContext(t)
	ml := newLocks(t, c, zktest.UniquePath(t)).multi(t)
	proxy.Close()
	require.Eventually(t, func() bool { return !c.IsConnected() }, 10*time.Second, 5*time.Millisecond)

	_, err := ml.AcquireTimeout(ctx, 500*time.Millisecond)
	require.ErrorIs(t, err, multilock.ErrUnreachable)
	assert.NotErrorIs(t, err, multilock.ErrNotAcquired)
}

// The first part is lost (the connection is suspended, under the standard
// error policy) while the second is waited for; the second is then
// granted. The acquire must not hand out a hold that is lost already: it
// fails with ErrLost and leaves nothing behind.
func TestMultiLock_PartLostWhileALaterOneIsAwaitedFailsTheAcquire(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(4*time.Second))
	other := connect(t, zktest.Servers(t))
	base := zktest.UniquePath(t)
	ml := newLocks(t, c, base).multi(t)
	release := holdPart(t, newLocks(t, other, base), 1)
	suspended := make(chan struct{}, 1)
	c.AddListener(func(s framework.StateChange) {
		if s.State == framework.Suspended {
			select {
			case suspended <- struct{}{}:
			default:
			}
		}
	})

	got := make(chan error, 1)
	go func() { // ends when the acquire does
		h, err := ml.AcquireTimeout(testContext(t), 30*time.Second)
		if err == nil {
			_ = h.Release(context.Background())
		}
		got <- err
	}()
	require.Eventually(t, func() bool { return len(children(t, other, base+"/b")) == 2 }, 10*time.Second, 10*time.Millisecond, "the acquire waits at the write lock")
	proxy.Pause()
	<-suspended
	release() // the write lock is free for the waiter once it is back
	proxy.Resume()
	select {
	case err := <-got:
		require.ErrorIs(t, err, multilock.ErrLost)
	case <-time.After(30 * time.Second):
		t.Fatal("the acquire did not end")
	}
	require.Eventually(t, func() bool { return len(nodes(t, other, base)) == 0 }, 15*time.Second, 20*time.Millisecond, "nodes left behind")
}

// sessionLocks is newLocks under the session error policy: a hold
// survives a cut connection while its session lives.
func sessionLocks(t *testing.T, c *framework.Client, base string) locks {
	t.Helper()
	m, err := mutex.New(c, base+"/a", mutex.WithErrorPolicy(framework.SessionErrorPolicy))
	require.NoError(t, err)
	rw, err := rwlock.New(c, base+"/b", rwlock.WithErrorPolicy(framework.SessionErrorPolicy))
	require.NoError(t, err)
	sem, err := semaphore.NewMutex(c, base+"/c", semaphore.WithErrorPolicy(framework.SessionErrorPolicy))
	require.NoError(t, err)
	return locks{base: base, m: m, rw: rw, sem: sem}
}

// The answer to the second part's create is lost (the connection is cut
// as the server applies it). Under the session policy the part finds its
// node again and the multi-lock holds every part with one node each;
// under the standard policy the cut ends the first part's hold, and the
// acquire fails with ErrLost, leaving nothing behind.
func TestMultiLock_LostCreateAnswerOfALaterPartLeavesNoDuplicate(t *testing.T) {
	for _, policy := range []framework.ErrorPolicy{framework.SessionErrorPolicy, framework.StandardErrorPolicy} {
		proxy := zktest.NewProxy(t, zktest.Servers(t))
		c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
		ctx := testContext(t)
		base := zktest.UniquePath(t)
		l := newLocks(t, c, base)
		if policy == framework.SessionErrorPolicy {
			l = sessionLocks(t, c, base)
		}
		// Hold the first part already, so that the multi-lock re-enters it
		// and its first create is the second part's.
		first, err := l.m.Acquire(ctx)
		require.NoError(t, err)
		proxy.DropNextCreateReply()
		h, err := l.multi(t).Acquire(ctx)
		require.Equal(t, 1, proxy.DroppedReplies(), "the second part's create answer was dropped")
		if policy == framework.SessionErrorPolicy {
			require.NoError(t, err)
			assert.Len(t, children(t, c, base+"/a"), 1)
			assert.Len(t, children(t, c, base+"/b"), 1, "the second part left a duplicate")
			assert.Len(t, children(t, c, base+"/c/leases"), 1)
			require.NoError(t, h.Release(ctx))
			require.NoError(t, first.Release(ctx))
		} else {
			require.ErrorIs(t, err, multilock.ErrLost, "a hold lost by the cut was handed out")
			require.ErrorIs(t, first.Release(ctx), multilock.ErrLost)
		}
		require.Eventually(t, func() bool { return len(nodes(t, c, base)) == 0 }, 15*time.Second, 20*time.Millisecond, "nodes left behind (%v)", policy)
	}
}
