package rwlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
)

const shortSession = 2 * time.Second

// A holder's session expires (the proxy stops passing its traffic): its
// hold is signalled lost, and the waiters behind it go on, a writer behind
// a reader and readers behind a writer alike.
func TestFault_HolderSessionExpiryLetsTheQueueMoveOn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		holderWrites  bool
		waitersWrite  []bool
		waitersShared bool
	}{
		{name: "writer", holderWrites: true, waitersWrite: []bool{false, false}, waitersShared: true},
		{name: "reader", holderWrites: false, waitersWrite: []bool{true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			servers := zktest.Servers(t)
			proxy := zktest.NewProxy(t, servers)
			holderClient := connect(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
			observer := connect(t, servers)
			ctx := testContext(t)
			path := zktest.UniquePath(t)
			holder := newRW(t, holderClient, path).ReadLock()
			if tc.holderWrites {
				holder = newRW(t, holderClient, path).WriteLock()
			}
			h, err := holder.Acquire(ctx)
			require.NoError(t, err)
			var waiters []*pending
			for i, write := range tc.waitersWrite {
				l := newRW(t, connect(t, servers), path).ReadLock()
				if write {
					l = newRW(t, connect(t, servers), path).WriteLock()
				}
				waiters = append(waiters, start(l))
				queued(t, observer, path, i+2)
			}

			proxy.Pause()
			waitClosed(t, h.Lost(), 10*time.Second, "the holder's loss channel")
			require.ErrorIs(t, h.Err(), rwlock.ErrLost)
			var holds []*rwlock.Hold
			for _, w := range waiters {
				holds = append(holds, w.held(t, "a waiter after the holder's session expired"))
			}
			if tc.waitersShared {
				for _, h := range holds {
					assert.NoError(t, h.Err(), "readers hold together")
				}
			}
			for _, w := range waiters {
				w.finish(t)
			}
			proxy.Resume()
			require.ErrorIs(t, h.Release(ctx), rwlock.ErrLost, "release after loss says so")
			require.Eventually(t, func() bool { return len(children(t, observer, path)) == 0 }, 20*time.Second, 20*time.Millisecond)
		})
	}
}

// A waiter cancelled or timed out, reader or writer, deletes its node.
func TestFault_CancelledAndTimedWaitersLeaveNoNode(t *testing.T) {
	servers := zktest.Servers(t)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	w, err := newRW(t, c, path).WriteLock().Acquire(ctx)
	require.NoError(t, err)
	rw := newRW(t, connect(t, servers), path)
	for _, l := range []*rwlock.Lock{rw.ReadLock(), rw.WriteLock()} {
		_, err := l.AcquireTimeout(ctx, heldTimeout)
		require.ErrorIs(t, err, rwlock.ErrNotAcquired)
		cctx, cancel := context.WithCancel(ctx)
		time.AfterFunc(100*time.Millisecond, cancel)
		_, err = l.Acquire(cctx)
		require.ErrorIs(t, err, context.Canceled)
		assert.False(t, l.IsAcquiredInThisProcess())
	}
	// A create cut short is cleaned up just after.
	require.Eventually(t, func() bool {
		names := children(t, c, path)
		return len(names) == 1 && path+"/"+names[0] == w.Node()
	}, 10*time.Second, 10*time.Millisecond, "only the holder's node")
	require.NoError(t, w.Release(ctx))
}

// The answer to a waiting reader's create is lost and its connection cut
// several times: it leaves no duplicate node, takes the lock once the
// writer goes, and nothing is left behind.
func TestFault_LostCreateAnswerLeavesNoDuplicate(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	holderClient := connect(t, servers)
	waiterClient := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	w, err := newRW(t, holderClient, path).WriteLock().Acquire(ctx)
	require.NoError(t, err)

	proxy.DropNextCreateReply()
	reconnected := make(chan struct{}, 10)
	waiterClient.AddListener(func(s framework.StateChange) {
		if s.State == framework.Reconnected {
			reconnected <- struct{}{}
		}
	})
	reader := start(newRW(t, waiterClient, path).ReadLock())
	require.Eventually(t, func() bool { return proxy.DroppedReplies() == 1 }, 10*time.Second, 5*time.Millisecond)
	queued(t, holderClient, path, 2)
	for range 3 {
		proxy.Cut()
		select {
		case <-reconnected:
		case <-time.After(10 * time.Second):
			t.Fatal("the waiter did not reconnect")
		}
		assert.Len(t, children(t, holderClient, path), 2, "no duplicate node after a cut")
	}
	require.NoError(t, w.Release(ctx))
	h := reader.held(t, "the reader")
	assert.Equal(t, []string{h.Node()[len(path)+1:]}, children(t, holderClient, path))
	reader.finish(t)
	assert.Empty(t, children(t, holderClient, path))
}
