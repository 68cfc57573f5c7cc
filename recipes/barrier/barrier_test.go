package barrier_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// waitAsync waits at b's barrier on a goroutine of its own.
func waitAsync(ctx context.Context, wait func(context.Context) error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- wait(ctx) }() // ends when Wait returns
	return ch
}

func TestBarrier_WaitBlocksWhileSetAndReturnsOnceRemoved(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t) + "/b"
	setter := newBarrier(t, connect(t, zktest.Servers(t)), path)
	waiter := newBarrier(t, connect(t, proxy.Addr()), path)
	require.NoError(t, setter.Set(ctx))

	looks := proxy.Requests(opExists)
	done := waitAsync(ctx, waiter.Wait)
	require.Eventually(t, func() bool { return proxy.Requests(opExists) > looks }, 10*time.Second, time.Millisecond)
	assert.Empty(t, done, "the waiter found the barrier set: it waits")
	require.NoError(t, setter.Remove(ctx))
	require.NoError(t, receive(t, done, "the wait"))
}

func TestBarrier_WaitForABarrierNotSetReturnsAtOnce(t *testing.T) {
	ctx := testContext(t)
	require.NoError(t, newBarrier(t, connect(t, zktest.Servers(t)), zktest.UniquePath(t)).Wait(ctx))
}

func TestBarrier_SetAndRemoveTwiceAreNoErrors(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	b := newBarrier(t, c, zktest.UniquePath(t)+"/a/b")
	require.NoError(t, b.Set(ctx))
	require.NoError(t, b.Set(ctx))
	ok, _, err := c.Exists(ctx, b.Path())
	require.NoError(t, err)
	assert.True(t, ok)
	require.NoError(t, b.Remove(ctx))
	require.NoError(t, b.Remove(ctx))
	ok, _, err = c.Exists(ctx, b.Path())
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestBarrier_WaitEndsWithItsContext(t *testing.T) {
	b := newBarrier(t, connect(t, zktest.Servers(t)), zktest.UniquePath(t))
	require.NoError(t, b.Set(testContext(t)))
	ctx, cancel := context.WithTimeout(testContext(t), 200*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, b.Wait(ctx), context.DeadlineExceeded)
}

// A removal while the waiter's connection is down reaches it once it is
// back: its watch is set again.
func TestBarrier_WaitRidesOutAConnectionLoss(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	setter := newBarrier(t, connect(t, zktest.Servers(t)), path)
	waiter := newBarrier(t, connect(t, proxy.Addr()), path)
	require.NoError(t, setter.Set(ctx))
	looks := proxy.Requests(opExists)
	done := waitAsync(ctx, waiter.Wait)
	require.Eventually(t, func() bool { return proxy.Requests(opExists) > looks }, 10*time.Second, time.Millisecond)

	proxy.Pause()
	require.NoError(t, setter.Remove(ctx))
	assert.Empty(t, done, "nothing reached the waiter")
	proxy.Cut()
	proxy.Resume()
	require.NoError(t, receive(t, done, "the wait"))
}

// A set and a remove whose answers were lost are sent again and meet
// their own work: no error.
func TestBarrier_SetAndRemoveWhoseAnswersAreLostAreNoErrors(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, dir))
	b := newBarrier(t, c, dir+"/b")

	proxy.DropNextCreateReply()
	require.NoError(t, b.Set(ctx))
	proxy.DropNextReply(zktest.OpDelete)
	require.NoError(t, b.Remove(ctx))
	assert.Equal(t, 2, proxy.DroppedReplies())
	ok, _, err := c.Exists(ctx, b.Path())
	require.NoError(t, err)
	assert.False(t, ok)
}
