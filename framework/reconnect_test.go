package framework_test

import (
	"sync"
	"testing"
	"time"

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
