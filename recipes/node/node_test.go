package node_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/node"
)

func TestNode_CreatesItsNodeAndDeletesItAtClose(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t) + "/member"
	n, evs := started(t, c, path, framework.Ephemeral, "hello")
	assert.Equal(t, path, n.Node())
	assert.Equal(t, path, evs.next(t, node.Created).Path)
	data, stat, err := c.Get(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(data))
	assert.Equal(t, c.Session().ID(), stat.EphemeralOwner)

	require.NoError(t, n.Close(ctx))
	ok, _, err := c.Exists(ctx, path)
	require.NoError(t, err)
	assert.False(t, ok, "nothing left after Close")
	assert.Empty(t, n.Node())
	assert.ErrorIs(t, n.SetData(ctx, nil), node.ErrClosed)
}

func TestNode_CreatedAgainAfterAnOperatorDeletesItWithTheLastData(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t) + "/member"
	n, evs := started(t, c, path, framework.Ephemeral, "first")
	evs.next(t, node.Created)
	require.NoError(t, n.SetData(ctx, []byte("second")))
	require.NoError(t, other.Delete(ctx, path, -1))
	evs.next(t, node.Created)
	data, _, err := c.Get(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, "second", string(data))
}

// After an expiry the node comes back in the new session with one
// request: the create.
func TestNode_CreatedAgainInTheNewSessionWithinOneRoundTrip(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	const timeout = 2 * time.Second
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(timeout))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	// A persistent parent: a container's would go with its last child.
	_, err := other.Create(ctx, dir, nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	path := dir + "/member"
	n, evs := started(t, c, path, framework.Ephemeral, "data")
	evs.next(t, node.Created)
	first := c.Session().ID()
	requestsAtCreated := make(chan int64, 4)
	n.AddListener(func(ev node.Event) {
		requestsAtCreated <- proxy.Requests(zktest.OpCreate)
	})

	lost := make(chan struct{}, 1)
	c.AddListener(func(sc framework.StateChange) {
		if sc.State == framework.Lost {
			select {
			case lost <- struct{}{}:
			default:
			}
		}
	})
	require.Eventually(t, func() bool { return proxy.Requests(opExists) == 1 }, 10*time.Second, time.Millisecond, "the node's watch is set")
	proxy.Pause()
	<-lost
	require.Eventually(t, func() bool {
		ok, _, err := other.Exists(ctx, path)
		return err == nil && !ok
	}, 20*time.Second, 50*time.Millisecond, "the server expires the session")
	creates := proxy.Requests(zktest.OpCreate)

	proxy.Resume()
	evs.next(t, node.Created)
	// The node's first request in the new session is its create (the
	// old node is known gone with its session): one round trip.
	assert.Equal(t, creates+1, <-requestsAtCreated, "one create, tried once")
	_, stat, err := other.Get(ctx, path)
	require.NoError(t, err)
	assert.NotEqual(t, first, stat.EphemeralOwner)
	require.NoError(t, other.Delete(ctx, dir+"/member", -1))
	assert.Equal(t, c.Session().ID(), stat.EphemeralOwner)
}

// A create whose answer was lost is found, not repeated: one node, one
// Created event.
func TestNode_ALostCreateAnswerLeavesOneNode(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode framework.CreateMode
	}{{"fixed name", framework.Ephemeral}, {"protected sequential", framework.EphemeralSequential}} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := zktest.NewProxy(t, zktest.Servers(t))
			c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
			ctx := testContext(t)
			dir := zktest.UniquePath(t)
			require.NoError(t, c.EnsurePath(ctx, dir))
			proxy.DropNextCreateReply()
			n, evs := started(t, c, dir+"/member-", tc.mode, "x")
			evs.next(t, node.Created)
			assert.Equal(t, 1, proxy.DroppedReplies(), "the create's answer was lost")
			assert.Len(t, zktest.Children(t, c, dir), 1)
			assert.Contains(t, n.Node(), dir+"/")
			require.NoError(t, n.Close(ctx))
			assert.Empty(t, zktest.Children(t, c, dir), "nothing left after Close")
		})
	}
}

func TestNode_WaitsForAnotherOwnersNodeToGo(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t) + "/member"
	_, err := other.Create(ctx, path, []byte("theirs"), framework.Ephemeral, framework.WithParents())
	require.NoError(t, err)
	n, err := node.New(c, path, framework.Ephemeral, []byte("ours"))
	require.NoError(t, err)
	evs := make(events, 16)
	n.AddListener(evs.listener())
	require.NoError(t, n.Start(ctx))
	defer n.Close(ctx)
	failed := evs.next(t, node.Failed)
	assert.ErrorIs(t, failed.Err, zk.ErrNodeExists)
	require.NoError(t, other.Delete(ctx, path, -1))
	evs.next(t, node.Created)
	data, _, err := c.Get(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, "ours", string(data))
}

func TestNode_APersistentNodeInTheWayIsTakenOverWithOurData(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t) + "/config"
	_, err := c.Create(ctx, path, []byte("old"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	n, _ := started(t, c, path, framework.Persistent, "new")
	data, _, err := c.Get(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, "new", string(data))
	require.NoError(t, n.Close(ctx))
	ok, _, err := c.Exists(ctx, path)
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestNode_StartsCtxEndingDeletesTheNode(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t) + "/member"
	n, err := node.New(c, path, framework.Ephemeral, nil)
	require.NoError(t, err)
	run, cancel := context.WithCancel(context.Background())
	require.NoError(t, n.Start(run))
	require.NoError(t, n.AwaitCreated(ctx))
	cancel()
	select {
	case <-n.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("not done after its ctx ended")
	}
	assert.ErrorIs(t, n.Err(), context.Canceled)
	ok, _, err := c.Exists(ctx, path)
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestNode_BadInputFailsTypedWithoutARequest(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	before := proxy.Requests(zktest.OpCreate)
	for name, make := range map[string]func() (*node.Node, error){
		"nil client":      func() (*node.Node, error) { return node.New(nil, "/a", framework.Ephemeral, nil) },
		"bad path":        func() (*node.Node, error) { return node.New(c, "a", framework.Ephemeral, nil) },
		"root":            func() (*node.Node, error) { return node.New(c, "/", framework.Ephemeral, nil) },
		"container":       func() (*node.Node, error) { return node.New(c, "/a", framework.Container, nil) },
		"TTL without TTL": func() (*node.Node, error) { return node.New(c, "/a", framework.PersistentTTL, nil) },
		"TTL on ephemeral": func() (*node.Node, error) {
			return node.New(c, "/a", framework.Ephemeral, nil, node.WithTTL(time.Second))
		},
		"nil logger": func() (*node.Node, error) { return node.New(c, "/a", framework.Ephemeral, nil, node.WithLogger(nil)) },
		"nil option": func() (*node.Node, error) { return node.New(c, "/a", framework.Ephemeral, nil, nil) },
	} {
		_, err := make()
		assert.ErrorIs(t, err, node.ErrInvalidArgument, name)
	}
	assert.Equal(t, before, proxy.Requests(zktest.OpCreate))
}

func TestNode_StartTwiceOrAfterCloseFails(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t) + "/member"
	n, _ := started(t, c, path, framework.Ephemeral, "")
	assert.ErrorIs(t, n.Start(ctx), node.ErrStarted)
	closed, err := node.New(c, path+"2", framework.Ephemeral, nil)
	require.NoError(t, err)
	require.NoError(t, closed.Close(ctx))
	assert.ErrorIs(t, closed.Start(ctx), node.ErrClosed)
	assert.ErrorIs(t, closed.AwaitCreated(ctx), node.ErrClosed)
}

const opExists int32 = 3

// A server that cannot be reached delays the create, and never ends the
// node: it is created once the server is back.
func TestNode_AnUnreachableServerDelaysTheCreate(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	path := zktest.UniquePath(t) + "/member"
	proxy.Pause()
	n, err := node.New(c, path, framework.Ephemeral, nil)
	require.NoError(t, err)
	require.NoError(t, n.Start(context.Background()))
	defer n.Close(testContext(t))
	short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, n.AwaitCreated(short), context.DeadlineExceeded)
	proxy.Resume()
	proxy.Cut()
	require.NoError(t, n.AwaitCreated(testContext(t)))
	assert.Equal(t, path, n.Node())
}

// The client gives a session up (its lease ran out while it heard
// nothing) while the server still has it, its pings arriving: the node
// of the old session is in the way of the new one's create. It is the
// process's own: deleted, and the node made again at once.
func TestNode_AnOldSessionsNodeInTheWayIsReplaced(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(2*time.Second))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	_, err := other.Create(ctx, dir, nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	path := dir + "/member"
	_, evs := started(t, c, path, framework.Ephemeral, "data")
	evs.next(t, node.Created)
	first := c.Session().ID()
	lost := make(chan struct{}, 1)
	c.AddListener(func(sc framework.StateChange) {
		if sc.State == framework.Lost {
			select {
			case lost <- struct{}{}:
			default:
			}
		}
	})
	proxy.PauseReplies()
	<-lost
	_, stat, err := other.Get(ctx, path)
	require.NoError(t, err, "the old session's node is still there")
	require.Equal(t, first, stat.EphemeralOwner)
	proxy.Resume()
	evs.next(t, node.Created)
	_, stat, err = other.Get(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, c.Session().ID(), stat.EphemeralOwner)
	require.NoError(t, other.Delete(ctx, path, -1))
}

// A node someone made in the node's place, before the node's goroutine
// has looked, is not written by SetData: its data stays its owner's, and
// the node creates its own, with the new data, once that one is gone.
func TestNode_SetDataNeverWritesANodeOfAnotherSession(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t) + "/member"
	n, err := node.New(c, path, framework.Ephemeral, []byte("mine"))
	require.NoError(t, err)
	// The node's goroutine is held in its listener from the first
	// create on, so it cannot notice what follows.
	release := make(chan struct{})
	n.AddListener(func(node.Event) { <-release })
	require.NoError(t, n.Start(context.Background()))
	t.Cleanup(func() { _ = n.Close(context.Background()) })
	require.NoError(t, n.AwaitCreated(ctx))

	require.NoError(t, other.Delete(ctx, path, -1))
	_, err = other.Create(ctx, path, []byte("theirs"), framework.Ephemeral)
	require.NoError(t, err)
	require.NoError(t, n.SetData(ctx, []byte("new")))
	data, stat, err := other.Get(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, "theirs", string(data), "SetData wrote a node of another session")
	assert.Equal(t, other.Session().ID(), stat.EphemeralOwner)

	close(release)
	require.NoError(t, other.Delete(ctx, path, -1))
	require.Eventually(t, func() bool {
		data, stat, err := c.Get(ctx, path)
		return err == nil && string(data) == "new" && stat.EphemeralOwner == c.Session().ID()
	}, 20*time.Second, 20*time.Millisecond, "the node comes back with the data SetData set")
}

// Concurrent SetData calls all succeed, one after the other; the last
// call's data is the node's.
func TestNode_SetDataCallsAtOnceAllLand(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t) + "/member"
	n, _ := started(t, c, path, framework.Ephemeral, "0")
	errs := make(chan error, 8)
	for i := range 8 {
		go func() { errs <- n.SetData(ctx, []byte{byte('a' + i)}) }()
	}
	for range 8 {
		require.NoError(t, <-errs)
	}
	require.NoError(t, n.SetData(ctx, []byte("last")))
	data, stat, err := c.Get(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, "last", string(data))
	assert.EqualValues(t, 9, stat.Version, "one write per call")
}
