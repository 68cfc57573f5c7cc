package mutex_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// queued is a waiter acquiring in the background.
type queued struct {
	holds   chan *mutex.Hold
	failed  chan error
	release chan struct{}
}

// queue starts an Acquire on m in another goroutine and waits until the
// directory at path has want children. The hold is sent on holds and
// released when release is closed.
func queue(t *testing.T, m *mutex.Mutex, observer func() int, want int) *queued {
	t.Helper()
	q := &queued{holds: make(chan *mutex.Hold, 1), failed: make(chan error, 1), release: make(chan struct{})}
	go func() {
		h, err := m.Acquire(context.Background())
		if err != nil {
			q.failed <- err
			return
		}
		q.holds <- h
		<-q.release
		_ = h.Release(context.Background())
	}()
	require.Eventually(t, func() bool { return observer() == want }, 10*time.Second, 5*time.Millisecond)
	return q
}

// held returns q's hold, failing the test if it does not come in time.
func (q *queued) held(t *testing.T, what string) *mutex.Hold {
	t.Helper()
	select {
	case h := <-q.holds:
		return h
	case err := <-q.failed:
		t.Fatalf("%s: acquire failed: %v", what, err)
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: not acquired within 10s", what)
	}
	return nil
}

// notHeld fails the test if q acquires within d.
func (q *queued) notHeld(t *testing.T, d time.Duration, what string) {
	t.Helper()
	select {
	case <-q.holds:
		t.Fatalf("%s acquired a lock held by another", what)
	case err := <-q.failed:
		t.Fatalf("%s: acquire failed: %v", what, err)
	case <-time.After(d):
	}
}

// The waiters second and third in the queue watch every node in front of
// them, and hold the lock the moment the last of those is deleted: from
// the holder's release to the third waiter's hold, nobody lists the
// directory or reads a node (DESIGN section 6).
func TestHandOff_NearTheHeadNeedsNoSecondLook(t *testing.T) {
	for _, wp := range waitPaths {
		t.Run(wp.name, func(t *testing.T) { nearTheHeadNeedsNoSecondLook(t, wp.old) })
	}
}

// nearTheHeadNeedsNoSecondLook: on the directory watch's path, each waiter
// lists twice (at its create, and once its watch is set) and reads no node.
func nearTheHeadNeedsNoSecondLook(t *testing.T, old bool) {
	servers := zktest.Servers(t)
	path := zktest.UniquePath(t)
	observer := connect(t, servers)
	count := func() int { return len(children(t, observer, path)) }
	holder, err := newMutex(t, connect(t, servers), path).Acquire(testContext(t))
	require.NoError(t, err)

	proxies := []*zktest.Proxy{zktest.NewProxy(t, servers), zktest.NewProxy(t, servers)}
	if old {
		makeOld(proxies[0])
		makeOld(proxies[1])
	}
	// listings and reads is what a waiter i (from 0) has sent once armed.
	listings, reads := func(int) int64 { return 2 }, func(int) int64 { return 0 }
	if old {
		listings, reads = func(int) int64 { return 1 }, func(i int) int64 { return int64(i + 2) }
	}
	second := queue(t, newMutex(t, connect(t, proxies[0].Addr()), path), count, 2)
	third := queue(t, newMutex(t, connect(t, proxies[1].Addr()), path), count, 3)
	// Each waiter lists once and watches its own node and those in front.
	for i, p := range proxies {
		require.Eventually(t, func() bool {
			return p.Requests(zktest.OpGetChildren2) == listings(i) && p.Requests(zktest.OpGetData) == reads(i)
		}, 10*time.Second, 5*time.Millisecond, "waiter %d is armed", i+2)
	}

	require.NoError(t, holder.Release(testContext(t)))
	second.held(t, "the second waiter")
	third.notHeld(t, 200*time.Millisecond, "the third waiter")
	close(second.release)
	third.held(t, "the third waiter")
	close(third.release)
	for i, p := range proxies {
		assert.Equal(t, listings(i), p.Requests(zktest.OpGetChildren2), "waiter %d listed the directory no more", i+2)
		assert.Equal(t, reads(i), p.Requests(zktest.OpGetData), "waiter %d read no node after the release", i+2)
	}
	require.Eventually(t, func() bool { return count() == 0 }, 10*time.Second, 10*time.Millisecond)
}

// A waiter whose node an operator deletes must not take the hand-off that
// its node would have had: it queues again behind the waiter that is now
// first, and only one of them holds at a time.
func TestHandOff_WaiterWhoseNodeIsDeletedQueuesAgain(t *testing.T) {
	for _, wp := range waitPaths {
		t.Run(wp.name, func(t *testing.T) { waiterWhoseNodeIsDeletedQueuesAgain(t, wp.old) })
	}
}

func waiterWhoseNodeIsDeletedQueuesAgain(t *testing.T, old bool) {
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
	victim := queue(t, newMutex(t, connect(t, proxy.Addr()), path), count, 2)
	third := queue(t, newMutex(t, connect(t, servers), path), count, 3)
	require.Eventually(t, func() bool { return waiting(proxy, old, 1) }, 10*time.Second, 5*time.Millisecond, "the victim waits")

	lister := newMutex(t, operator, path)
	participants, err := lister.Participants(testContext(t))
	require.NoError(t, err)
	require.Len(t, participants, 3)
	require.NoError(t, operator.Delete(testContext(t), participants[1].Node, -1))
	// The victim notices and queues again, behind the third waiter.
	require.Eventually(t, func() bool {
		p, err := lister.Participants(testContext(t))
		return err == nil && len(p) == 3 && p[1].Node == participants[2].Node
	}, 10*time.Second, 5*time.Millisecond, "the victim queued a new node")

	require.NoError(t, holder.Release(testContext(t)))
	h := third.held(t, "the third waiter")
	victim.notHeld(t, 300*time.Millisecond, "the waiter whose node was deleted")
	select {
	case <-h.Lost():
		t.Fatal("the holder's hold was lost")
	default:
	}
	close(third.release)
	victim.held(t, "the re-queued waiter")
	close(victim.release)
	require.Eventually(t, func() bool { return count() == 0 }, 10*time.Second, 10*time.Millisecond)
}
