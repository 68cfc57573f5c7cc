package framework_test

import (
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// Reconnects with watches set and calls under way: the client sets the
// watches again on each new connection while go-zookeeper's receive loop
// already reads replies. Were the watches go-zookeeper's, this is where
// go-zookeeper 1.0.4 races on lastZxid, which the race detector catches
// now and then in builds that, like this project's, use go-zookeeper
// unpatched.
func TestReconnect_WatchesAreSetAgainOnEveryConnection(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	_, _, watch, err := c.ChildrenW(ctx, path)
	require.NoError(t, err)

	// Calls keep coming, so that some wait for each new connection and
	// their replies race with the watches being set again.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { // ends when the cuts are over
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, _, _ = c.Exists(ctx, path)
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	for range 30 {
		proxy.Cut()
		require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
		require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)
		_, _, err := c.Get(ctx, path)
		require.NoError(t, err)
	}
	_, err = c.Create(ctx, path+"/child", nil, framework.Ephemeral)
	require.NoError(t, err)
	select {
	case <-watch:
	case <-time.After(10 * time.Second):
		t.Fatal("the watch set before the cuts did not fire")
	}
}

// A connection the client replaced after losing its session lives on until
// its Close ends it, and may read a connect response of the old session
// meanwhile (the server kept it): the watch table stays the new session's,
// and a watch set in the new session neither ends nor is interrupted.
func TestReconnect_AReplacedConnectionsHandshakeLeavesTheWatchesAlone(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	_, err := c.Create(ctx, path, nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	old := c.Session().ID()

	proxy.Pause()
	for s := states.next(t, 15*time.Second); s.State != framework.Lost; s = states.next(t, 15*time.Second) {
	}
	proxy.Resume()
	for s := states.next(t, 15*time.Second); s.State != framework.Reconnected; s = states.next(t, 15*time.Second) {
	}
	_, _, changed, err := c.GetW(ctx, path)
	require.NoError(t, err)

	framework.ReplacedConnectionConnects(c, old)
	_, err = c.Set(ctx, path, []byte("x"), -1)
	require.NoError(t, err)
	select {
	case ev := <-changed:
		assert.Equal(t, zk.EventNodeDataChanged, ev.Type, "the old session's handshake ended the watch: %v", ev.Err)
	case <-time.After(10 * time.Second):
		t.Fatal("the watch never fired")
	}
}
