package mutex_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

const shortSession = 2 * time.Second

func TestFault_HolderSessionExpiresThenTheWaiterAcquires(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	holderClient := connect(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	waiterClient := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	h, err := newMutex(t, holderClient, path).Acquire(ctx)
	require.NoError(t, err)
	lost := h.Lost()

	acquired := make(chan time.Time, 1)
	go func() {
		h2, err := newMutex(t, waiterClient, path).Acquire(ctx)
		if assert.NoError(t, err) {
			acquired <- time.Now()
			assert.NoError(t, h2.Release(ctx))
		}
	}()
	require.Eventually(t, func() bool { return len(children(t, waiterClient, path)) == 2 }, 10*time.Second, 10*time.Millisecond)

	proxy.Pause()
	waitClosed(t, lost, 10*time.Second, "the holder's loss channel")
	signalled := time.Now()
	require.ErrorIs(t, h.Err(), mutex.ErrLost)
	select {
	case at := <-acquired:
		assert.True(t, at.After(signalled), "the holder was told before the waiter acquired")
	case <-time.After(20 * time.Second):
		t.Fatal("the waiter did not acquire after the holder's session expired")
	}
	proxy.Resume()
	require.ErrorIs(t, h.Release(ctx), mutex.ErrLost, "release after loss says so")
	require.Eventually(t, func() bool { return len(children(t, waiterClient, path)) == 0 }, 15*time.Second, 20*time.Millisecond)
}

func TestFault_ConnectionCutWhileWaitingLeavesNoDuplicate(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	holderClient := connect(t, zktest.Servers(t))
	waiterClient := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	h, err := newMutex(t, holderClient, path).Acquire(ctx)
	require.NoError(t, err)

	proxy.DropNextCreateReply() // the waiter's create loses its answer
	acquired := make(chan *mutex.Hold, 1)
	go func() {
		h2, err := newMutex(t, waiterClient, path).Acquire(ctx)
		if assert.NoError(t, err) {
			acquired <- h2
		}
	}()
	require.Eventually(t, func() bool { return proxy.DroppedReplies() == 1 }, 10*time.Second, 5*time.Millisecond)
	reconnected := make(chan struct{}, 10)
	waiterClient.AddListener(func(s framework.StateChange) {
		if s.State == framework.Reconnected {
			reconnected <- struct{}{}
		}
	})
	require.Eventually(t, func() bool { return len(children(t, holderClient, path)) == 2 }, 10*time.Second, 10*time.Millisecond)
	for range 3 {
		proxy.Cut()
		select {
		case <-reconnected:
		case <-time.After(10 * time.Second):
			t.Fatal("the waiter did not reconnect")
		}
		assert.Len(t, children(t, holderClient, path), 2, "no duplicate node after a cut")
	}
	require.NoError(t, h.Release(ctx))
	select {
	case h2 := <-acquired:
		assert.Equal(t, []string{baseName(h2.Node())}, children(t, holderClient, path))
		require.NoError(t, h2.Release(ctx))
	case <-time.After(20 * time.Second):
		t.Fatal("the waiter did not acquire after reconnecting")
	}
	assert.Empty(t, children(t, holderClient, path))
}

func TestFault_OperatorDeletesTheHoldersNode(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	operator := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	h, err := newMutex(t, c, zktest.UniquePath(t)).Acquire(ctx)
	require.NoError(t, err)
	lost := h.Lost()
	select {
	case <-lost:
		t.Fatal("lost before anything happened")
	case <-time.After(100 * time.Millisecond):
	}
	require.NoError(t, operator.Delete(ctx, h.Node(), -1))
	waitClosed(t, lost, 10*time.Second, "the loss channel after the node was deleted")
	require.ErrorIs(t, h.Err(), mutex.ErrLost)
	assert.Contains(t, h.Err().Error(), "deleted")
	require.ErrorIs(t, h.Release(ctx), mutex.ErrLost)
}

func TestFault_CancelledWaiterLeavesNoNode(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	h, err := newMutex(t, c, path).Acquire(ctx)
	require.NoError(t, err)
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := newMutex(t, connect(t, zktest.Servers(t)), path).Acquire(cctx)
		done <- err
	}()
	require.Eventually(t, func() bool { return len(children(t, c, path)) == 2 }, 10*time.Second, 10*time.Millisecond)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	// A create still in flight when ctx ended is cleaned up in the
	// background, just after Acquire returns.
	require.Eventually(t, func() bool {
		names := children(t, c, path)
		return len(names) == 1 && names[0] == baseName(h.Node())
	}, 10*time.Second, 10*time.Millisecond, "the waiter's node is gone")
	require.NoError(t, h.Release(ctx))
}

func TestFault_WaiterWhoseSessionIsLostFailsFast(t *testing.T) {
	t.Parallel()
	for _, wp := range waitPaths {
		t.Run(wp.name, func(t *testing.T) { waiterWhoseSessionIsLostFailsFast(t, wp.old) })
	}
}

func waiterWhoseSessionIsLostFailsFast(t *testing.T, old bool) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	if old {
		makeOld(proxy)
	}
	holderClient := connect(t, zktest.Servers(t))
	waiterClient := connect(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	h, err := newMutex(t, holderClient, path).Acquire(ctx)
	require.NoError(t, err)
	defer func() { assert.NoError(t, h.Release(ctx)) }()

	done := make(chan error, 1)
	go func() {
		_, err := newMutex(t, waiterClient, path).Acquire(ctx) // ctx allows 90 s
		done <- err
	}()
	// Waiting: it has watched its own node and the holder's, or the directory.
	require.Eventually(t, func() bool { return waiting(proxy, old, 2) }, 10*time.Second, 5*time.Millisecond)
	proxy.Pause()
	select {
	case err := <-done:
		require.ErrorIs(t, err, mutex.ErrLost)
	case <-time.After(15 * time.Second):
		t.Fatal("the waiter did not fail when its session was lost")
	}
	proxy.Resume()
}

func TestFault_ErrorPolicyDecidesWhetherASuspensionEndsTheHold(t *testing.T) {
	for _, tc := range []struct {
		policy   framework.ErrorPolicy
		wantLost bool
	}{
		{framework.StandardErrorPolicy, true},
		{framework.SessionErrorPolicy, false},
	} {
		t.Run(tc.policy.String(), func(t *testing.T) {
			proxy := zktest.NewProxy(t, zktest.Servers(t))
			c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
			ctx := testContext(t)
			path := zktest.UniquePath(t)
			h, err := newMutex(t, c, path, mutex.WithErrorPolicy(tc.policy)).Acquire(ctx)
			require.NoError(t, err)
			states := make(chan framework.StateChange, 10)
			c.AddListener(func(s framework.StateChange) { states <- s })
			proxy.Cut()
			for s := range states {
				if s.State == framework.Reconnected {
					break
				}
			}
			if !tc.wantLost {
				select {
				case <-h.Lost():
					t.Fatal("the session policy ended the hold on a short disconnect")
				case <-time.After(200 * time.Millisecond):
				}
				require.NoError(t, h.Release(ctx))
				return
			}
			waitClosed(t, h.Lost(), 5*time.Second, "the loss channel on suspension")
			require.ErrorIs(t, h.Release(ctx), mutex.ErrLost)
			require.Eventually(t, func() bool { return len(children(t, c, path)) == 0 }, 10*time.Second, 20*time.Millisecond,
				"the given-up node is deleted once connected")
		})
	}
}
