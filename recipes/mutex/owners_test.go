package mutex_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/mutex/lockdriver"
)

// Concurrent acquires by one explicit owner count up on one hold: none is
// orphaned, and every release but the last keeps the lock. A driver that
// lets two holders in is where an overwritten hold showed (two nodes).
func TestMutex_ConcurrentAcquiresByOneOwnerShareOneHold(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	m, err := mutex.NewWithDriver(c, path, "lock-", lockdriver.StandardDriver(2))
	require.NoError(t, err)
	owner := mutex.ContextWithOwner(ctx, "job-1")

	const n = 8
	holds := make(chan *mutex.Hold, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			h, err := m.Acquire(owner)
			assert.NoError(t, err)
			holds <- h
		})
	}
	wg.Wait()
	close(holds)
	var first *mutex.Hold
	for h := range holds {
		if first == nil {
			first = h
		}
		assert.Same(t, first, h, "one hold for one owner")
	}
	assert.Len(t, children(t, c, path), 1, "one node for one owner")
	for range n - 1 {
		require.NoError(t, m.Release(owner))
	}
	assert.Len(t, children(t, c, path), 1, "still held after n-1 releases")
	require.NoError(t, m.Release(owner))
	assert.Empty(t, children(t, c, path))
}

// A second acquire by an owner whose first acquire is still waiting waits
// with it, and gives up when its own ctx ends without disturbing the first.
func TestMutex_SecondAcquireOfAWaitingOwnerEndsWithItsContext(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	holder, err := newMutex(t, c, path).Acquire(ctx)
	require.NoError(t, err)

	m := newMutex(t, c, path)
	owner := mutex.ContextWithOwner(ctx, "job-2")
	first := make(chan error, 1)
	go func() {
		_, err := m.Acquire(owner)
		first <- err
	}()
	require.Eventually(t, func() bool { return len(children(t, c, path)) == 2 }, 10*time.Second, 5*time.Millisecond)
	short, cancel := context.WithTimeout(owner, 100*time.Millisecond)
	defer cancel()
	_, err = m.Acquire(short)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Len(t, children(t, c, path), 2, "the second acquire queued nothing")

	require.NoError(t, holder.Release(ctx))
	require.NoError(t, <-first)
	require.NoError(t, m.Release(owner))
}

// Owners that would share a hold without excluding each other, or panic as
// map keys, are refused before anything is sent.
func TestMutex_RefusesOwnersThatCannotExclude(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	ctx := testContext(t)
	m := newMutex(t, c, zktest.UniquePath(t))
	type request struct{}
	type holder struct{ v any }
	before := requests()
	for name, owner := range map[string]any{
		"pointer to zero-size": &request{},
		"slice inside":         holder{v: []byte("x")},
	} {
		_, err := m.Acquire(mutex.ContextWithOwner(ctx, owner))
		require.ErrorIs(t, err, mutex.ErrInvalidArgument, name)
		require.ErrorIs(t, m.Release(mutex.ContextWithOwner(ctx, owner)), mutex.ErrInvalidArgument, name)
	}
	assert.Equal(t, before, requests(), "nothing reached the server")
}

// A second release of a released hold says so, rather than "not the owner".
func TestHold_SecondReleaseSaysAlreadyReleased(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	m := newMutex(t, c, zktest.UniquePath(t))
	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Release(ctx))
	err = h.Release(ctx)
	require.ErrorIs(t, err, mutex.ErrReleased)
	assert.NotErrorIs(t, err, mutex.ErrNotOwner)
	assert.ErrorIs(t, m.Release(ctx), mutex.ErrNotOwner, "an owner holding nothing")
}

// A zero or negative timeout is one attempt: a free lock is taken, a held
// one is not, and no node is left either way.
func TestMutex_ZeroTimeoutIsOneAttempt(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	m := newMutex(t, c, path)
	for _, timeout := range []time.Duration{0, -time.Second} {
		h, err := m.AcquireTimeout(ctx, timeout)
		require.NoError(t, err, "a free lock is taken with timeout %v", timeout)
		require.NoError(t, h.Release(ctx))
	}
	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	other := newMutex(t, connect(t, zktest.Servers(t)), path)
	_, err = other.AcquireTimeout(ctx, 0)
	require.ErrorIs(t, err, mutex.ErrNotAcquired)
	assert.Len(t, children(t, c, path), 1, "the attempt left nothing")
	require.NoError(t, h.Release(ctx))
}

// A revocation written into a waiter's node while it waits is seen when
// the hold starts: the handler runs, as Curator's watcher does.
func TestMutex_RevocationWrittenWhileWaitingReachesTheHolder(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	holder, err := newMutex(t, c, path).Acquire(ctx)
	require.NoError(t, err)

	revoked := make(chan *mutex.Hold, 1)
	waiter := newMutex(t, connect(t, zktest.Servers(t)), path, mutex.WithRevocation(func(h *mutex.Hold) { revoked <- h }))
	got := make(chan *mutex.Hold, 1)
	go func() {
		h, err := waiter.Acquire(ctx)
		assert.NoError(t, err)
		got <- h
	}()
	var node string
	require.Eventually(t, func() bool {
		ps, err := waiter.Participants(ctx)
		if err != nil || len(ps) != 2 {
			return false
		}
		node = ps[1].Node
		return true
	}, 10*time.Second, 5*time.Millisecond)
	time.Sleep(100 * time.Millisecond) // let the waiter arm its own node's watch
	require.NoError(t, mutex.Revoke(ctx, c, node))
	require.NoError(t, holder.Release(ctx))

	h := <-got
	require.NotNil(t, h)
	select {
	case r := <-revoked:
		assert.Same(t, h, r)
	case <-time.After(10 * time.Second):
		t.Fatal("the revocation written while waiting never reached the handler")
	}
	require.NoError(t, h.Release(ctx))
}

// A waiter whose node keeps vanishing queues again only as often as the
// client's retry policy allows, then fails with ErrNodeMissing.
func TestMutex_RequeueAfterAMissingNodeIsBounded(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	holder, err := newMutex(t, c, path).Acquire(ctx)
	require.NoError(t, err)
	holderName := holder.Node()[len(path)+1:]

	stop := make(chan struct{})
	var deleter sync.WaitGroup
	defer deleter.Wait()
	defer close(stop)
	// Ends when the test does: deletes every node but the holder's.
	deleter.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			names, _, _ := c.Children(ctx, path)
			for _, name := range names {
				if name != holderName {
					_ = c.Delete(ctx, path+"/"+name, -1)
				}
			}
		}
	})
	waiterClient := connect(t, zktest.Servers(t), framework.WithRetryPolicy(framework.RetryNTimes(2, 10*time.Millisecond)))
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	_, err = newMutex(t, waiterClient, path).Acquire(wctx)
	require.ErrorIs(t, err, mutex.ErrNodeMissing)
	assert.NoError(t, wctx.Err(), "it gave up before its context ended")
	require.NoError(t, holder.Release(ctx))
}
