package mutex

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// waitBehind has waiter wait behind holder, until waiter's client has the
// directory watch set and its view exact, then hands the lock on and
// releases it: the view outlives the hold while the watch lingers.
func waitBehind(t *testing.T, ctx context.Context, holder, waiter *Mutex) {
	t.Helper()
	h, err := holder.Acquire(ctx)
	require.NoError(t, err)
	waited := make(chan *Hold, 1)
	go func() {
		h, err := waiter.Acquire(ctx)
		assert.NoError(t, err)
		waited <- h
	}()
	require.Eventually(t, func() bool { return viewExact(waiter) }, 10*time.Second, 5*time.Millisecond, "the waiter sets the watch and lists")
	require.NoError(t, h.Release(ctx))
	require.NoError(t, (<-waited).Release(ctx))
}

// viewExact reports whether m's directory watch has its view exact.
func viewExact(m *Mutex) bool {
	d := m.engine.dirWatch()
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.view.exact()
}

// A view that missed events while the connection was down is never used.
// Back on a new connection, the server has the directory watch again (its
// setWatches2 arrived) but the client has not heard so: the answer is set
// aside by the proxy, as if it came late. Meanwhile another client has
// taken the lock. Our create is answered with its event, before any
// WatchResumed: a view kept from before the drop would show our node
// alone, and the lock held twice. The client learns of the new connection
// before any answer on it (WatchInterrupted), and lists instead.
func TestDirView_ANewConnectionEndsTheView(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	path := zktest.UniquePath(t)
	ctx := zktest.Context(t)
	ours, err := New(zktest.Connect(t, proxy.Addr()), path)
	require.NoError(t, err)
	ours.engine.dirWatch().linger = time.Hour // the view outlives the steps below
	theirs, err := New(zktest.Connect(t, zktest.Servers(t)), path)
	require.NoError(t, err)

	waitBehind(t, ctx, theirs, ours)
	require.True(t, viewExact(ours), "the view outlives the hold while the watch lingers")

	// Cut off, we miss their create; back, the restore's answer is late.
	proxy.SetAsideNextReply(zktest.OpSetWatches2)
	proxy.Pause()
	h, err := theirs.Acquire(ctx)
	require.NoError(t, err)
	// Cut, not left to Resume: their create's event to us may still be on
	// its way to the proxy, and would taint our connection too late.
	proxy.Cut()
	proxy.Resume()
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpSetWatches2) >= 1 }, 20*time.Second, 5*time.Millisecond)

	_, err = ours.TryAcquire(ctx)
	require.ErrorIs(t, err, ErrNotAcquired, "their hold is in front of our node")
	if proxy.Requests(zktest.OpSetWatches2) == 1 { // else a later connection's restore was answered
		assert.False(t, viewExact(ours), "no WatchResumed has come: the view stays unsure")
	}

	proxy.ReleaseReplies()
	require.NoError(t, h.Release(ctx))
	mine, err := ours.Acquire(ctx)
	require.NoError(t, err, "with the watch back, the lock is ours once theirs goes")
	require.NoError(t, mine.Release(ctx))
}

// The view is replayed from a listing and the events that may follow it;
// an event that ends an epoch makes a listing of it count for nothing.
func TestDirView_ListingAndEvents(t *testing.T) {
	const dir = "/q"
	ev := func(typ framework.WatchEventType, name string) framework.WatchEvent {
		return framework.WatchEvent{Type: typ, Path: dir + "/" + name}
	}
	var v dirView
	require.Nil(t, v.begin(), "no listing counts before the watch is on the server")
	v.armed(v.epoch)

	l := v.begin()
	v.apply(dir, ev(framework.NodeCreated, "b"))      // after the listing
	v.apply(dir, ev(framework.NodeDeleted, "a"))      // after the listing
	v.apply(dir, ev(framework.NodeCreated, "c"))      // before it: shown already
	v.apply(dir, ev(framework.NodeCreated, "x/deep")) // not in the queue
	require.False(t, v.exact())
	v.end(l, []string{"a", "c"})
	require.True(t, v.exact())
	assert.ElementsMatch(t, []string{"b", "c"}, v.list("c"))
	assert.Nil(t, v.list("a"), "a node the view lacks gets no queue")

	v.apply(dir, ev(framework.NodeDeleted, "b"))
	assert.ElementsMatch(t, []string{"c"}, v.list("c"))

	for _, typ := range []framework.WatchEventType{framework.WatchInterrupted, framework.WatchResumed, framework.WatchSessionChanged} {
		v.armed(v.epoch)
		l := v.begin()
		require.NotNil(t, l)
		v.apply(dir, framework.WatchEvent{Type: typ, Path: dir})
		require.False(t, v.exact(), "%v ends the view", typ)
		v.end(l, []string{"c"})
		require.False(t, v.exact(), "a listing begun before %v counts for nothing", typ)
	}
	v.apply(dir, framework.WatchEvent{Type: framework.WatchInterrupted, Path: dir})
	assert.Nil(t, v.begin(), "after WatchInterrupted until WatchResumed, no listing counts")
	v.apply(dir, framework.WatchEvent{Type: framework.WatchResumed, Path: dir})
	require.NotNil(t, v.begin())

	epoch := v.epoch
	v.drop()
	v.armed(epoch)
	assert.Nil(t, v.begin(), "a watch armed in an epoch that has ended is not known on the server")
}

// Every Mutex of a client on one path follows one directory watch, and an
// idle watch is dropped from the client, so that a client of many paths
// keeps none for those it no longer locks.
func TestDirWatch_SharedByTheClientsMutexesAndDroppedWhenIdle(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	path := zktest.UniquePath(t)
	ctx := zktest.Context(t)
	one, err := New(c, path)
	require.NoError(t, err)
	other, err := New(c, path)
	require.NoError(t, err)
	d := one.engine.dirWatch()
	require.Same(t, d, other.engine.dirWatch())
	d.linger = 10 * time.Millisecond

	waitBehind(t, ctx, one, other)
	require.Eventually(t, func() bool { return one.engine.dirWatch() != d }, 10*time.Second, 5*time.Millisecond,
		"the idle watch is dropped")
	assert.Same(t, one.engine.dirWatch(), other.engine.dirWatch())
}

// A client whose waiter finds the queue long (shortQueue) stops having the
// directory watch, though it keeps queueing: else each queueing within
// the linger would join the watch again, and every create and delete of
// the long queue would keep coming to it. So too for a TryAcquire, which
// looks once.
func TestDirWatch_ALongQueueEndsIt(t *testing.T) {
	for name, attempt := range map[string]func(context.Context, *Mutex) error{
		"Acquire": func(ctx context.Context, m *Mutex) error {
			short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
			defer cancel()
			_, err := m.Acquire(short)
			return err
		},
		"TryAcquire": func(ctx context.Context, m *Mutex) error {
			_, err := m.TryAcquire(ctx)
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			servers := zktest.Servers(t)
			ctx := zktest.Context(t)
			path := zktest.UniquePath(t)
			c := zktest.Connect(t, servers)
			ours, err := New(c, path)
			require.NoError(t, err)
			theirs := zktest.Connect(t, servers)
			first, err := New(theirs, path)
			require.NoError(t, err)
			ours.engine.dirWatch().linger = time.Hour
			waitBehind(t, ctx, first, ours)
			require.True(t, c.Watching(path, framework.WatchRecursive))

			// A holder and shortQueue waiters in front: a long queue.
			h, err := first.Acquire(ctx)
			require.NoError(t, err)
			var wg sync.WaitGroup
			defer wg.Wait()
			defer func() { require.NoError(t, h.Release(ctx)) }()
			for range shortQueue {
				m, err := New(theirs, path)
				require.NoError(t, err)
				wg.Go(func() {
					h, err := m.Acquire(ctx)
					if assert.NoError(t, err) {
						assert.NoError(t, h.Release(ctx))
					}
				})
			}
			require.Eventually(t, func() bool {
				children, _, err := theirs.Children(ctx, path)
				return err == nil && len(children) == shortQueue+1
			}, 10*time.Second, 5*time.Millisecond)

			for deadline := time.Now().Add(10 * time.Second); c.Watching(path, framework.WatchRecursive); {
				require.True(t, time.Now().Before(deadline), "the client keeps the directory watch behind a long queue")
				require.Error(t, attempt(ctx, ours), "the lock is held")
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// A client whose waiter finds the queue long gives up the server's watch
// of the directory at once, not after the framework's linger: for that
// second the server would still tell the client of every create and
// delete of the long queue, which is most of what a contended burst of
// a second or two costs (the semaphore's guard, with 32 clients, heard
// about 20 notifications an acquisition then, against 2 after). Once the
// removal is answered, the queue's changes bring the client nothing.
func TestDirWatch_ALongQueueRemovesTheServersWatchAtOnce(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	c := zktest.Connect(t, proxy.Addr())
	ours, err := New(c, path)
	require.NoError(t, err)
	theirs := zktest.Connect(t, servers)
	first, err := New(theirs, path)
	require.NoError(t, err)
	ours.engine.dirWatch().linger = time.Hour // only the long queue ends it
	waitBehind(t, ctx, first, ours)
	require.True(t, c.Watching(path, framework.WatchRecursive))

	// A holder and shortQueue waiters in front: a long queue.
	h, err := first.Acquire(ctx)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range shortQueue {
		m, err := New(theirs, path)
		require.NoError(t, err)
		wg.Go(func() { // ends when the lock is taken and given back
			h, err := m.Acquire(ctx)
			if assert.NoError(t, err) {
				assert.NoError(t, h.Release(ctx))
			}
		})
	}
	require.Eventually(t, func() bool {
		children, _, err := theirs.Children(ctx, path)
		return err == nil && len(children) == shortQueue+1
	}, 10*time.Second, 5*time.Millisecond)

	_, err = ours.TryAcquire(ctx)
	require.ErrorIs(t, err, ErrNotAcquired)
	require.Eventually(t, func() bool {
		_, kept := c.Hooks().LoadShared(dirWatchKey{path})
		return !kept
	}, 10*time.Second, 5*time.Millisecond, "the client keeps the directory watch behind a long queue")
	assert.False(t, c.Watching(path, framework.WatchRecursive), "the server's watch lingers")
	require.Eventually(t, func() bool { return proxy.Answered(zktest.OpRemoveWatches) > 0 }, 10*time.Second, 5*time.Millisecond,
		"the server's watch is removed")

	notified := proxy.Notifications()
	require.NoError(t, h.Release(ctx))
	wg.Wait() // every waiter in front took the lock and gave it back
	// The notifications of those changes would come before this answer.
	_, _, err = c.Children(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, notified, proxy.Notifications(), "notifications of the long queue")
}

// A lock WithWatchedQueue follows a longer queue through the directory
// watch than a plain one: behind a holder and shortQueue waiters, where a
// plain lock's waiter watches the nodes in front one by one, its waiter
// sets no watch of its own.
func TestDirWatch_WithWatchedQueueFollowsALongerQueue(t *testing.T) {
	servers := zktest.Servers(t)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	proxy := zktest.NewProxy(t, servers)
	ours, err := New(zktest.Connect(t, proxy.Addr()), path, WithWatchedQueue(shortQueue+2))
	require.NoError(t, err)
	theirs := zktest.Connect(t, servers)
	first, err := New(theirs, path)
	require.NoError(t, err)
	h, err := first.Acquire(ctx)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range shortQueue {
		m, err := New(theirs, path)
		require.NoError(t, err)
		wg.Go(func() { // ends when the lock is taken and given back
			h, err := m.Acquire(ctx)
			if assert.NoError(t, err) {
				assert.NoError(t, h.Release(ctx))
			}
		})
	}
	require.Eventually(t, func() bool {
		children, _, err := theirs.Children(ctx, path)
		return err == nil && len(children) == shortQueue+1
	}, 10*time.Second, 5*time.Millisecond)

	wg.Go(func() { // ends when the lock is taken and given back
		h, err := ours.Acquire(ctx)
		if assert.NoError(t, err) {
			assert.NoError(t, h.Release(ctx))
		}
	})
	require.Eventually(t, func() bool {
		oneShot := proxy.Requests(zktest.OpGetData) > 0
		watched := proxy.Requests(zktest.OpAddWatch) == 1 && proxy.Requests(zktest.OpGetChildren2) >= 2
		return oneShot || watched
	}, 10*time.Second, 5*time.Millisecond, "ours waits")
	require.NoError(t, h.Release(ctx))
	wg.Wait()
	assert.Zero(t, proxy.Requests(zktest.OpGetData), "watches set on nodes in front")
}

// A lock taken and given back with nobody else on it keeps nothing in its
// client: a directory watch is made only for a queue that is waited in,
// so that a process that locks many paths once each (ten thousand idle
// holds, one per path) keeps nothing per path but its holds.
func TestDirWatch_AFreeLockKeepsNoneInTheClient(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	path := zktest.UniquePath(t)
	ctx := zktest.Context(t)
	m, err := New(c, path)
	require.NoError(t, err)

	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	_, kept := c.Hooks().LoadShared(dirWatchKey{path})
	assert.False(t, kept, "while held")
	require.NoError(t, h.Release(ctx))
	_, kept = c.Hooks().LoadShared(dirWatchKey{path})
	assert.False(t, kept, "once released")
}

// Nor does a lock waited in on a server without addWatch (before
// ZooKeeper 3.6), where the waiter's try to set the directory watch fails
// and it waits on one-shot watches.
func TestDirWatch_AnOldServerKeepsNoneInTheClient(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	proxy.MakeOld()
	c := zktest.Connect(t, proxy.Addr())
	path := zktest.UniquePath(t)
	ctx := zktest.Context(t)
	ours, err := New(c, path)
	require.NoError(t, err)
	theirs, err := New(zktest.Connect(t, servers), path)
	require.NoError(t, err)

	h, err := theirs.Acquire(ctx)
	require.NoError(t, err)
	waited := make(chan error, 1)
	go func() {
		h, err := ours.Acquire(ctx)
		if err == nil {
			err = h.Release(ctx)
		}
		waited <- err
	}()
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpGetData) >= 1 }, 10*time.Second, 5*time.Millisecond,
		"the waiter waits on one-shot watches")
	require.NoError(t, h.Release(ctx))
	require.NoError(t, <-waited)
	_, kept := c.Hooks().LoadShared(dirWatchKey{path})
	assert.False(t, kept)
}

// A waiter on the directory watch is woken by the deletion of a node it
// waits on or of its own, and by a reconnect; the creations and deletions
// of other nodes queue without waking it, else every hand-off would wake
// every waiter of the client. An event queued before the waiter named its
// nodes wakes it when it names them.
func TestDirSub_WakesAWaiterOnlyForWhatMayBeItsTurn(t *testing.T) {
	const dir = "/q"
	ev := func(typ framework.WatchEventType, name string) framework.WatchEvent {
		return framework.WatchEvent{Type: typ, Path: dir + "/" + name}
	}
	s := &dirSub{wake: make(chan struct{}, 1)}
	woken := func() bool {
		select {
		case <-s.wake:
			return true
		default:
			return false
		}
	}
	s.waitFor([]string{"front", "ours"})
	s.push(ev(framework.NodeCreated, "behind"))
	s.push(ev(framework.NodeDataChanged, "front"))
	s.push(ev(framework.NodeDeleted, "farther"))
	assert.False(t, woken(), "woken by another node's change")
	for _, e := range []framework.WatchEvent{
		ev(framework.NodeDeleted, "front"),
		ev(framework.NodeDeleted, "ours"),
		{Type: framework.WatchResumed, Path: dir},
		{Type: framework.WatchSessionChanged, Path: dir},
	} {
		s.push(e)
		assert.True(t, woken(), "not woken by %v", e)
	}

	s.push(ev(framework.NodeDeleted, "next"))
	require.False(t, woken())
	s.waitFor([]string{"next", "ours"})
	assert.True(t, woken(), "not woken by a deletion queued before it named the node")
	events, ended := s.take()
	assert.Len(t, events, 8, "every event is queued for the waiter's view of the queue")
	assert.False(t, ended)
}
