package multilock_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/multilock"
)

func TestHold_PartDeletedByAnotherClientClosesLost(t *testing.T) {
	for i := range 3 {
		c := connect(t, zktest.Servers(t))
		operator := connect(t, zktest.Servers(t))
		ctx := testContext(t)
		base := zktest.UniquePath(t)
		h, err := newLocks(t, c, base).multi(t).Acquire(ctx)
		require.NoError(t, err)
		lost := h.Lost()

		victim := h.Parts()[i].Node()
		require.NoError(t, operator.Delete(ctx, victim, -1))
		waitClosed(t, lost, 10*time.Second, "the multi-hold's loss channel")
		require.ErrorIs(t, h.Err(), multilock.ErrLost)
		assert.Contains(t, h.Err().Error(), victim[:strings.LastIndex(victim, "/")], "Err names the lost part")

		require.ErrorIs(t, h.Release(ctx), multilock.ErrLost, "release after a part's loss says so")
		assert.Empty(t, nodes(t, operator, base), "release after a part's loss left the other parts held (part %d lost)", i)
	}
}

func TestHold_SessionExpiredThroughTheProxyClosesLost(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(2*time.Second))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	base := zktest.UniquePath(t)
	h, err := newLocks(t, c, base).multi(t).Acquire(ctx)
	require.NoError(t, err)
	lost := h.Lost()

	proxy.Pause()
	waitClosed(t, lost, 10*time.Second, "the multi-hold's loss channel")
	require.ErrorIs(t, h.Err(), multilock.ErrLost)
	// The server expires the session: its nodes go with it, and another
	// client takes every part.
	theirs, err := newLocks(t, other, base).multi(t).AcquireTimeout(ctx, 20*time.Second)
	require.NoError(t, err)
	proxy.Resume()
	require.ErrorIs(t, h.Release(ctx), multilock.ErrLost)
	require.NoError(t, theirs.Release(ctx))
	require.Eventually(t, func() bool { return len(nodes(t, other, base)) == 0 }, 15*time.Second, 20*time.Millisecond)
}

// A hold released before any loss never closes Lost, and its watch ends.
func TestHold_ReleasedHoldIsNotLost(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	base := zktest.UniquePath(t)
	h, err := newLocks(t, c, base).multi(t).Acquire(ctx)
	require.NoError(t, err)
	lost := h.Lost()
	require.NoError(t, h.Release(ctx))
	select {
	case <-lost:
		t.Fatal("a released hold was signalled lost")
	default:
	}
	require.ErrorIs(t, h.Err(), multilock.ErrReleased)
	assert.NotErrorIs(t, h.Err(), multilock.ErrLost)
}
