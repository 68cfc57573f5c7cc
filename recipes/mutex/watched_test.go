package mutex_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// linger is longer than the directory watch outlives its last subscriber,
// and than a ZooKeeper 3.8 server takes to refuse removeWatches by mode
// (ZOOKEEPER-4472) before the client removes the watch otherwise.
const linger = 20 * time.Second

// watchesRemoved waits until the server has no watch left on dir or any
// node below it (four-letter word wchp: watches by path).
func watchesRemoved(t *testing.T, dir string) {
	t.Helper()
	server := strings.Split(zktest.Servers(t), ",")[0]
	var out string
	require.Eventually(t, func() bool {
		var err error
		out, err = zktesting.FourLetterWord(testContext(t), server, "wchp")
		return err == nil && !strings.Contains(out, dir)
	}, linger, 20*time.Millisecond, "no watch left under %s", dir)
}

// A waiter whose predecessor is deleted while its connection is down hears
// nothing of it from the server; it must neither take the lock from the
// holder still in front nor wait for good: it looks again once back.
func TestWatched_PredecessorDeletedDuringABlipIsNoHandOff(t *testing.T) {
	t.Parallel()
	for _, wp := range waitPaths {
		t.Run(wp.name, func(t *testing.T) {
			servers := zktest.Servers(t)
			path := zktest.UniquePath(t)
			operator := connect(t, servers)
			count := func() int { return len(children(t, operator, path)) }
			holder, err := newMutex(t, connect(t, servers), path).Acquire(testContext(t))
			require.NoError(t, err)
			first := queue(t, newMutex(t, connect(t, servers), path), count, 2)
			proxy := zktest.NewProxy(t, servers)
			if wp.old {
				makeOld(proxy)
			}
			second := queue(t, newMutex(t, connect(t, proxy.Addr()), path), count, 3)
			require.Eventually(t, func() bool { return waiting(proxy, wp.old, 2) }, 10*time.Second, 5*time.Millisecond, "the second waiter waits")

			proxy.Pause()
			ps, err := newMutex(t, operator, path).Participants(testContext(t))
			require.NoError(t, err)
			require.NoError(t, operator.Delete(testContext(t), ps[1].Node, -1)) // the first waiter's
			time.Sleep(100 * time.Millisecond)
			proxy.Resume() // cuts the connection that lost packets: the client reconnects
			second.notHeld(t, time.Second, "the second waiter, with the holder in front")

			require.NoError(t, holder.Release(testContext(t)))
			second.held(t, "the second waiter, once the holder released")
			close(second.release)
			first.held(t, "the first waiter, queued again")
			close(first.release)
			require.Eventually(t, func() bool { return count() == 0 }, 10*time.Second, 10*time.Millisecond)
		})
	}
}

// A hold taken after waiting learns of its node's deletion through the
// directory watch; a deletion while its connection was down, of which the
// server then says nothing, it learns by reading its node once back.
func TestWatched_HoldLearnsOfItsNodesDeletionAfterABlip(t *testing.T) {
	for _, wp := range waitPaths {
		t.Run(wp.name, func(t *testing.T) { holdLearnsOfItsNodesDeletion(t, wp.old, true) })
	}
}

// A hold taken after waiting learns of its node's deletion, through the
// directory watch on ZooKeeper 3.6+, with no watch of its own.
func TestWatched_HoldLearnsOfItsNodesDeletion(t *testing.T) {
	for _, wp := range waitPaths {
		t.Run(wp.name, func(t *testing.T) { holdLearnsOfItsNodesDeletion(t, wp.old, false) })
	}
}

func holdLearnsOfItsNodesDeletion(t *testing.T, old, blip bool) {
	servers := zktest.Servers(t)
	path := zktest.UniquePath(t)
	operator := connect(t, servers)
	count := func() int { return len(children(t, operator, path)) }
	holder, err := newMutex(t, connect(t, servers), path).Acquire(testContext(t))
	require.NoError(t, err)
	proxy := zktest.NewProxy(t, servers)
	if old {
		makeOld(proxy)
	}
	// Under the session policy a blip does not end the hold itself.
	m := newMutex(t, connect(t, proxy.Addr()), path, mutex.WithErrorPolicy(framework.SessionErrorPolicy))
	waiter := queue(t, m, count, 2)
	require.Eventually(t, func() bool { return waiting(proxy, old, 2) }, 10*time.Second, 5*time.Millisecond)
	require.NoError(t, holder.Release(testContext(t)))
	h := waiter.held(t, "the waiter")
	lost := h.Lost()

	reads := proxy.Requests(zktest.OpGetData)
	if blip {
		proxy.Pause()
	}
	require.NoError(t, operator.Delete(testContext(t), h.Node(), -1))
	if blip {
		time.Sleep(100 * time.Millisecond)
		proxy.Resume()
	}
	waitClosed(t, lost, 10*time.Second, "the loss channel after the node was deleted")
	if !old && !blip {
		assert.Equal(t, reads, proxy.Requests(zktest.OpGetData), "the hold read nothing")
	}
	require.ErrorIs(t, h.Err(), mutex.ErrLost)
	assert.Contains(t, h.Err().Error(), "deleted")
	close(waiter.release)
}

// Nothing is left once every waiter has released or given up: no node,
// and, after the linger, no directory watch on the server.
func TestWatched_ReleaseAndCancelLeaveNothing(t *testing.T) {
	t.Parallel()
	servers := zktest.Servers(t)
	path := zktest.UniquePath(t)
	ctx := testContext(t)
	operator := connect(t, servers)
	count := func() int { return len(children(t, operator, path)) }
	holder, err := newMutex(t, operator, path).Acquire(ctx)
	require.NoError(t, err)
	proxy := zktest.NewProxy(t, servers)
	m := newMutex(t, connect(t, proxy.Addr()), path)
	waiter := queue(t, m, count, 2)
	cctx, cancel := context.WithCancel(ctx)
	gaveUp := make(chan error, 1)
	go func() {
		_, err := m.Acquire(cctx) // another owner: the goroutine
		gaveUp <- err
	}()
	require.Eventually(t, func() bool { return count() == 3 && waiting(proxy, false, 0) }, 10*time.Second, 5*time.Millisecond)
	cancel()
	require.ErrorIs(t, <-gaveUp, context.Canceled)
	require.NoError(t, holder.Release(ctx))
	waiter.held(t, "the waiter")
	close(waiter.release)
	require.Eventually(t, func() bool { return count() == 0 }, 10*time.Second, 10*time.Millisecond)
	watchesRemoved(t, path)
	assert.Equal(t, int64(1), proxy.Requests(zktest.OpAddWatch), "one directory watch for both waiters")
}

// A waiter whose context ends while its addWatch is unanswered, or while
// it waits on the directory watch, leaves no node and, once the answer
// comes, no watch.
func TestWatched_ContextEndingAtEachWaitLeavesNothing(t *testing.T) {
	t.Parallel()
	for _, at := range []string{"addWatch", "waiting"} {
		t.Run(at, func(t *testing.T) {
			servers := zktest.Servers(t)
			path := zktest.UniquePath(t)
			ctx := testContext(t)
			operator := connect(t, servers)
			holder, err := newMutex(t, operator, path).Acquire(ctx)
			require.NoError(t, err)
			proxy := zktest.NewProxy(t, servers)
			if at == "addWatch" {
				proxy.HoldRepliesFrom(zktest.OpAddWatch)
			}
			m := newMutex(t, connect(t, proxy.Addr()), path)
			cctx, cancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() {
				_, err := m.Acquire(cctx)
				done <- err
			}()
			require.Eventually(t, func() bool {
				if at == "addWatch" {
					return proxy.Requests(zktest.OpAddWatch) == 1
				}
				return waiting(proxy, false, 0)
			}, 10*time.Second, 5*time.Millisecond)
			cancel()
			require.ErrorIs(t, <-done, context.Canceled)
			proxy.ReleaseReplies()
			require.Eventually(t, func() bool { return len(children(t, operator, path)) == 1 }, 10*time.Second, 10*time.Millisecond, "only the holder's node")
			watchesRemoved(t, path)
			require.NoError(t, holder.Release(ctx))
		})
	}
}

// One Mutex used by several goroutines at once (each its own owner),
// against another client, never has two holders, on either path.
func TestWatched_OneMutexFromManyGoroutines(t *testing.T) {
	t.Parallel()
	for _, wp := range waitPaths {
		t.Run(wp.name, func(t *testing.T) {
			servers := zktest.Servers(t)
			path := zktest.UniquePath(t)
			ctx := testContext(t)
			proxy := zktest.NewProxy(t, servers)
			if wp.old {
				makeOld(proxy)
			}
			shared := newMutex(t, connect(t, proxy.Addr()), path)
			other := newMutex(t, connect(t, servers), path)
			var holders atomic.Int32
			var wg sync.WaitGroup
			for i := range 5 {
				m := shared
				if i == 0 {
					m = other
				}
				wg.Go(func() {
					for range 20 {
						h, err := m.Acquire(ctx)
						if !assert.NoError(t, err) {
							return
						}
						assert.Equal(t, int32(1), holders.Add(1), "one holder at a time")
						time.Sleep(time.Millisecond)
						holders.Add(-1)
						if !assert.NoError(t, h.Release(ctx)) {
							return
						}
					}
				})
			}
			wg.Wait()
			assert.Empty(t, children(t, connect(t, servers), path))
			if !wp.old {
				watchesRemoved(t, path)
			}
		})
	}
}
