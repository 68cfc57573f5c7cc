package framework_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// nextWatchEvent returns the next event of w, failing the test after 10 s.
func nextWatchEvent(t *testing.T, w *framework.Watch) framework.WatchEvent {
	t.Helper()
	select {
	case ev, ok := <-w.Events():
		require.True(t, ok, "the watch ended: %v", w.Err())
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event within 10s")
		return framework.WatchEvent{}
	}
}

// awaitOneShot waits 10 s for the event of a one-shot watch, of type want.
func awaitOneShot(t *testing.T, once <-chan zk.Event, want zk.EventType, what string) zk.Event {
	t.Helper()
	select {
	case ev := <-once:
		assert.Equal(t, want, ev.Type)
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal(what)
		return zk.Event{}
	}
}

func TestWatch_RecursiveSeesEveryNodeBelowInTheServersOrder(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	w, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	defer w.Close(ctx)

	_, err = c.Create(ctx, path+"/a", nil, framework.Persistent)
	require.NoError(t, err)
	_, err = c.Create(ctx, path+"/a/b", []byte("1"), framework.Persistent)
	require.NoError(t, err)
	_, err = c.Set(ctx, path+"/a/b", []byte("2"), -1)
	require.NoError(t, err)
	require.NoError(t, c.Delete(ctx, path+"/a/b", -1))
	want := []framework.WatchEvent{
		{Type: framework.NodeCreated, Path: path + "/a"},
		{Type: framework.NodeCreated, Path: path + "/a/b"},
		{Type: framework.NodeDataChanged, Path: path + "/a/b"},
		{Type: framework.NodeDeleted, Path: path + "/a/b"},
	}
	for _, ev := range want {
		assert.Equal(t, ev, nextWatchEvent(t, w))
	}
}

func TestWatch_PersistentSeesTheNodeAndItsChildrenListAndStays(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	w, err := c.Watch(ctx, path, framework.WatchPersistent)
	require.NoError(t, err)
	defer w.Close(ctx)
	for range 2 { // a one-shot watch would have fired once
		// Persistent: a container would be reaped once its child goes.
		_, err = c.Create(ctx, path, nil, framework.Persistent, framework.WithParents())
		require.NoError(t, err)
		assert.Equal(t, framework.WatchEvent{Type: framework.NodeCreated, Path: path}, nextWatchEvent(t, w))
		_, err = c.Create(ctx, path+"/x", nil, framework.Persistent)
		require.NoError(t, err)
		assert.Equal(t, framework.WatchEvent{Type: framework.NodeChildrenChanged, Path: path}, nextWatchEvent(t, w))
		require.NoError(t, c.Delete(ctx, path+"/x", -1))
		assert.Equal(t, framework.NodeChildrenChanged, nextWatchEvent(t, w).Type)
		require.NoError(t, c.Delete(ctx, path, -1))
		assert.Equal(t, framework.WatchEvent{Type: framework.NodeDeleted, Path: path}, nextWatchEvent(t, w))
	}
}

func TestWatch_CloseRemovesTheServersWatchAndEndsTheEvents(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	w, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	require.NoError(t, w.Close(ctx))
	require.NoError(t, w.Close(ctx), "a second Close is a no-op")
	_, open := <-w.Events()
	assert.False(t, open)
	assert.NoError(t, w.Err())
	assert.Zero(t, proxy.Requests(zktest.OpRemoveWatches), "the server's watch lingers")
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpRemoveWatches) > 0 }, 10*time.Second, 5*time.Millisecond,
		"the server's watch is removed after its linger")
	time.Sleep(100 * time.Millisecond) // the fallback of 3.6 to 3.8, if any, follows at once
	assert.LessOrEqual(t, proxy.Requests(zktest.OpRemoveWatches), int64(2), "removeWatches by mode, then of any watch before 3.9")
	// The server sends nothing for the removed watch: its notification
	// would reach the client before the reply to the next request.
	notified := framework.CountNotifications(c, path)
	require.NoError(t, c.EnsurePath(ctx, path))
	_, _, err = c.Get(ctx, path)
	require.NoError(t, err)
	assert.Zero(t, notified(), "a notification for the removed watch")
}

func TestWatch_SlowReceiverLosesNoEvent(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	w, err := c.Watch(ctx, path, framework.WatchPersistent)
	require.NoError(t, err)
	defer w.Close(ctx)
	const sets = 200
	for i := range sets { // nobody reads meanwhile
		_, err := c.Set(ctx, path, []byte{byte(i)}, -1)
		require.NoError(t, err)
	}
	for range sets {
		assert.Equal(t, framework.NodeDataChanged, nextWatchEvent(t, w).Type)
	}
}

func TestWatch_ResumedAfterAReconnectAndRestoredOnTheNewConnection(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	w, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	defer w.Close(ctx)
	_, _, once, err := c.GetW(ctx, path)
	require.NoError(t, err)

	proxy.Cut()
	require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
	// A write by another client while this one is away: the one-shot
	// watch fires when set again (setWatches2 with the last zxid seen);
	// the persistent watch says it is back, and the receiver reads.
	other := connect(t, zktest.Servers(t))
	_, err = other.Set(ctx, path, []byte("while away"), -1)
	require.NoError(t, err)
	require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)
	// The one-shot watch's event may come first: the server sends one
	// notification for every watch of the path.
	for ev := nextWatchEvent(t, w); ev.Type != framework.WatchResumed; ev = nextWatchEvent(t, w) {
		assert.Equal(t, framework.WatchEvent{Type: framework.NodeDataChanged, Path: path}, ev)
	}
	awaitOneShot(t, once, zk.EventNodeDataChanged, "the one-shot watch set before the cut did not fire for the change made meanwhile")
	_, err = other.Create(ctx, path+"/after", nil, framework.Persistent)
	require.NoError(t, err)
	ev := nextWatchEvent(t, w)
	if ev.Type == framework.NodeDataChanged { // the one-shot watch's, after WatchResumed
		ev = nextWatchEvent(t, w)
	}
	assert.Equal(t, framework.WatchEvent{Type: framework.NodeCreated, Path: path + "/after"}, ev)
	assert.GreaterOrEqual(t, proxy.Requests(zktest.OpSetWatches2), int64(1))
}

// A write of the client's own that goes out on a new connection ahead of
// the restore of its watches is not told by a persistent watch: the
// server replays nothing to setWatches2. WatchResumed comes after the
// write's answer, with a zxid from before it, so the catch-up it asks
// for finds the write; a write after WatchResumed is told.
func TestWatch_OwnWriteAheadOfTheRestoreIsFoundFromWatchResumed(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	states := recordStates(c)
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, dir))
	path := dir + "/n"
	w, err := c.Watch(ctx, path, framework.WatchPersistent)
	require.NoError(t, err)
	defer w.Close(ctx)
	release := sync.OnceFunc(framework.HoldRestores(c))
	t.Cleanup(release) // before the client's Close, which waits for the restore

	proxy.Cut()
	require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
	require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)
	_, err = c.Create(ctx, path, []byte("ahead of the restore"), framework.Persistent)
	require.NoError(t, err)
	_, created, err := c.Exists(ctx, path)
	require.NoError(t, err)
	release()
	ev := nextWatchEvent(t, w)
	require.Equal(t, framework.WatchResumed, ev.Type, "the server told the create made ahead of the restore: %v", ev)
	assert.Less(t, ev.Zxid, created.Czxid, "WatchResumed's zxid is from before the create")
	got, err := c.ChangedSince(ctx, ev.Zxid, nil, []string{path})
	require.NoError(t, err)
	assert.Equal(t, []framework.WatchEvent{{Type: framework.NodeCreated, Path: path}}, got, "the catch-up finds the create")
	_, err = c.Set(ctx, path, []byte("after WatchResumed"), -1)
	require.NoError(t, err)
	assert.Equal(t, framework.WatchEvent{Type: framework.NodeDataChanged, Path: path}, nextWatchEvent(t, w))
}

func TestWatch_SessionChangedAfterAnExpiryAndOneShotsEnd(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	const timeout = 2 * time.Second
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(timeout))
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	w, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	defer w.Close(ctx)
	_, _, once, err := c.GetW(ctx, path)
	require.NoError(t, err)

	proxy.Pause()
	for s := states.next(t, 10*time.Second); s.State != framework.Lost; s = states.next(t, 10*time.Second) {
	}
	time.Sleep(timeout) // the server expires it too
	proxy.Resume()
	ev := awaitOneShot(t, once, zk.EventNotWatching, "the one-shot watch of the lost session was not ended")
	assert.ErrorIs(t, ev.Err, zk.ErrSessionExpired)
	changed := nextWatchEvent(t, w)
	assert.Equal(t, [2]any{framework.WatchSessionChanged, path}, [2]any{changed.Type, changed.Path})
	assert.NotZero(t, changed.Zxid, "the zxid to catch up from")
	_, err = c.Create(ctx, path+"/new", nil, framework.Persistent)
	require.NoError(t, err)
	assert.Equal(t, framework.WatchEvent{Type: framework.NodeCreated, Path: path + "/new"}, nextWatchEvent(t, w))
}

func TestWatch_AServerWithoutAddWatchFailsItTypedWithoutARequest(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	proxy.MakeOld()
	c := connect(t, proxy.Addr())
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	_, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.ErrorIs(t, err, framework.ErrUnimplemented)
	_, err = c.Watch(ctx, path, framework.WatchPersistent)
	require.ErrorIs(t, err, framework.ErrUnimplemented)
	assert.Equal(t, int64(0), proxy.Requests(zktest.OpAddWatch), "the server said its version")
	// One-shot watches still work.
	require.NoError(t, c.EnsurePath(ctx, path))
	_, _, once, err := c.GetW(ctx, path)
	require.NoError(t, err)
	_, err = c.Set(ctx, path, []byte("x"), -1)
	require.NoError(t, err)
	awaitOneShot(t, once, zk.EventNodeDataChanged, "the one-shot watch did not fire")
	select {
	case s := <-states.changes:
		t.Fatalf("the connection changed state: %v", s)
	default:
	}
}

// A server that says 3.6 or later, or no version, and lacks addWatch all
// the same answers UNIMPLEMENTED and closes the connection: the client
// learns it then, once.
func TestWatch_AServerThatLacksAddWatchUnsaidIsAskedOnce(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	proxy.Unimplement(zktest.OpAddWatch)
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	_, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.ErrorIs(t, err, framework.ErrUnimplemented)
	_, err = c.Watch(ctx, path, framework.WatchRecursive)
	require.ErrorIs(t, err, framework.ErrUnimplemented)
	assert.Equal(t, int64(1), proxy.Requests(zktest.OpAddWatch))
	require.NoError(t, c.EnsurePath(ctx, path), "the session goes on")
}

func TestWatch_AReconnectToAServerWithoutSetWatches2KeepsOneShotsAndEndsPersistentWatches(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	w, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	_, _, once, err := c.GetW(ctx, path)
	require.NoError(t, err)

	proxy.Unimplement(zktest.OpSetWatches2, zktest.OpAddWatch) // a rolling downgrade
	proxy.Cut()
	require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
	require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)
	select {
	case _, open := <-w.Events():
		assert.False(t, open, "no event for a watch the server cannot take")
	case <-time.After(10 * time.Second):
		t.Fatal("the persistent watch did not end")
	}
	assert.ErrorIs(t, w.Err(), framework.ErrUnimplemented)
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpSetWatches) > 0 }, 10*time.Second, 10*time.Millisecond)
	_, err = connect(t, zktest.Servers(t)).Set(ctx, path, []byte("x"), -1)
	require.NoError(t, err)
	awaitOneShot(t, once, zk.EventNodeDataChanged, "the one-shot watch was not set again")
}

func TestWatch_OneShotWatchesAloneAreSetAgainWithSetWatches(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	proxy.MakeOld()
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	_, _, once, err := c.GetW(ctx, path)
	require.NoError(t, err)
	proxy.Cut()
	require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
	require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpSetWatches) == 1 }, 10*time.Second, 10*time.Millisecond)
	_, err = c.Set(ctx, path, []byte("x"), -1)
	require.NoError(t, err)
	awaitOneShot(t, once, zk.EventNodeDataChanged, "the one-shot watch was not set again")
	assert.Equal(t, int64(0), proxy.Requests(zktest.OpSetWatches2))
	select {
	case s := <-states.changes:
		t.Fatalf("the connection changed state again: %v", s)
	default:
	}
}

func TestWatch_BadInputFailsWithoutARequest(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	sent := proxy.Sent()
	_, err := c.Watch(ctx, "/a", framework.WatchMode(7))
	assert.ErrorIs(t, err, framework.ErrInvalidArgument)
	_, err = c.Watch(ctx, "no/slash", framework.WatchPersistent)
	assert.ErrorIs(t, err, framework.ErrInvalidPath)
	_, err = c.MultiRead(ctx, framework.ReadOp{})
	assert.ErrorIs(t, err, framework.ErrInvalidArgument)
	assert.Equal(t, sent, proxy.Sent())
}

func TestWatch_ClosedClientEndsTheWatch(t *testing.T) {
	c, err := framework.Connect(testContext(t), []string{zktest.Servers(t)})
	require.NoError(t, err)
	w, err := c.Watch(testContext(t), "/", framework.WatchPersistent)
	require.NoError(t, err)
	require.NoError(t, c.Close())
	_, open := <-w.Events()
	assert.False(t, open)
	assert.True(t, errors.Is(w.Err(), framework.ErrClosed))
	_, err = c.Watch(context.Background(), "/", framework.WatchPersistent)
	assert.ErrorIs(t, err, framework.ErrClosed)
}

// go-zookeeper's own watcher table stays empty whatever watches the
// client sets: its reconnect then never reads the zxid its receive loop
// writes (go-zookeeper v1.0.4's data race), and the client alone sets
// them again.
func TestWatch_GoZookeeperOwnsNoWatch(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	_, _, _, err := c.GetW(ctx, path)
	require.NoError(t, err)
	_, _, _, err = c.ExistsW(ctx, path+"/missing")
	require.NoError(t, err)
	_, _, _, err = c.ChildrenW(ctx, path)
	require.NoError(t, err)
	w, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	defer w.Close(ctx)
	assert.Equal(t, 0, framework.GoZookeeperWatchers(c))
	proxy.Cut()
	require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
	require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpSetWatches2) == 1 }, 10*time.Second, time.Millisecond,
		"the client sets the watches again")
	assert.Equal(t, 0, framework.GoZookeeperWatchers(c))
	assert.Equal(t, int64(0), proxy.Requests(zktest.OpSetWatches), "go-zookeeper set none")
}

// A Watch whose ctx ends before the server's answer fails, and the watch
// the answer sets all the same is removed again: no watch of the client's
// is left on the server, and none in the client.
func TestWatch_CtxEndingBeforeTheAnswerLeavesNoWatch(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	path := zktest.UniquePath(t)
	_, err := c.Watch(testContext(t), "/", framework.WatchPersistent) // the server's version is asked
	require.NoError(t, err)
	proxy.HoldReplies()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = c.Watch(ctx, path, framework.WatchRecursive)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	before := proxy.Requests(zktest.OpRemoveWatches)
	proxy.ReleaseReplies()
	// One removeWatches by mode, and on 3.6-3.8 a second one of any watch
	// of the path after the first is refused: poll for the first, which a
	// poll can see whichever comes.
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpRemoveWatches) >= before+1 }, 10*time.Second, time.Millisecond,
		"the late watch is removed")
}

// With no server to reach, Watch fails with the context's end, never with
// ErrUnimplemented: the server's version could not be asked.
func TestWatch_UnreachableServerIsNotTakenForAnOldOne(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	addr := proxy.Addr()
	proxy.Close()
	c, err := framework.New([]string{addr})
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err = c.Watch(ctx, "/", framework.WatchRecursive)
	require.Error(t, err)
	assert.NotErrorIs(t, err, framework.ErrUnimplemented)
	_, err = c.MultiRead(ctx, framework.GetOp("/"))
	require.Error(t, err)
}

// A one-shot watch is set again relative to the last zxid the client saw
// before the reconnect, not to a later reply's: a read that goes out
// ahead of the restore does not hide a change made while away.
func TestWatch_OneShotRestoredRelativeToTheZxidBeforeTheReconnect(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	_, _, once, err := c.GetW(ctx, path)
	require.NoError(t, err)
	release := framework.HoldRestores(c)

	proxy.Cut()
	require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
	other := connect(t, zktest.Servers(t))
	_, err = other.Set(ctx, path, []byte("while away"), -1)
	require.NoError(t, err)
	require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)
	_, err = other.Create(ctx, path+"-later", nil, framework.Persistent) // a later zxid
	require.NoError(t, err)
	_, _, err = c.Get(ctx, path+"-later") // its reply carries it, ahead of the restore
	require.NoError(t, err)
	release()
	awaitOneShot(t, once, zk.EventNodeDataChanged, "the change made while away was missed")
}

// A connection that ends before its restore is answered does not move
// the zxid the next restore is relative to, even if replies it carried
// had later ones: the watches were not on the server meanwhile.
func TestWatch_AnUnansweredRestoreIsRepeatedFromTheOlderZxid(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	_, _, once, err := c.GetW(ctx, path)
	require.NoError(t, err)
	w, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	defer w.Close(ctx)
	release := framework.HoldRestores(c)

	proxy.Cut()
	require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
	other := connect(t, zktest.Servers(t))
	changed, err := other.Set(ctx, path, []byte("while away"), -1)
	require.NoError(t, err)
	require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)
	_, err = other.Create(ctx, path+"-later", nil, framework.Persistent)
	require.NoError(t, err)
	_, _, err = c.Get(ctx, path+"-later") // a later zxid, read ahead of the restore
	require.NoError(t, err)
	sent := proxy.Requests(zktest.OpSetWatches2)
	proxy.HoldRepliesFrom(zktest.OpSetWatches2)
	release()
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpSetWatches2) > sent }, 10*time.Second, time.Millisecond)
	proxy.Cut() // the restore's answer never comes
	proxy.ReleaseReplies()
	require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
	require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)
	awaitOneShot(t, once, zk.EventNodeDataChanged, "the change made while away was missed")
	for {
		ev := nextWatchEvent(t, w)
		if ev.Type == framework.WatchResumed {
			assert.Less(t, ev.Zxid, changed.Mzxid, "the persistent watch catches up from before the change")
			break
		}
	}
}
