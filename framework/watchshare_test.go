package framework_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// ZooKeeper 3.6 to 3.8 keep one watch mode per path and connection
// (ZOOKEEPER-4466): these tests set a one-shot watch where the client
// has a persistent one, and check that each still hears what it must.

// hears waits 5 s for the next event of w and says whether it is want.
func hears(t *testing.T, w *framework.Watch, want framework.WatchEvent) {
	t.Helper()
	select {
	case ev, ok := <-w.Events():
		require.True(t, ok, "the watch ended: %v", w.Err())
		assert.Equal(t, want, ev)
	case <-time.After(5 * time.Second):
		t.Fatalf("the watch did not hear %v %s within 5s", want.Type, want.Path)
	}
}

// oneShot is a one-shot watch call of the client's: GetW, ExistsW or
// ChildrenW, returning only the watch.
type oneShot func(ctx context.Context, c *framework.Client, path string) (<-chan zk.Event, error)

func getW(ctx context.Context, c *framework.Client, path string) (<-chan zk.Event, error) {
	_, _, ch, err := c.GetW(ctx, path)
	return ch, err
}

func existsW(ctx context.Context, c *framework.Client, path string) (<-chan zk.Event, error) {
	_, _, ch, err := c.ExistsW(ctx, path)
	return ch, err
}

func childrenW(ctx context.Context, c *framework.Client, path string) (<-chan zk.Event, error) {
	_, _, ch, err := c.ChildrenW(ctx, path)
	return ch, err
}

func TestWatch_PersistentWatchHearsOnAfterADataOneShotOfItsPath(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	w, err := c.Watch(ctx, path, framework.WatchPersistent)
	require.NoError(t, err)
	defer w.Close(ctx)
	once, err := getW(ctx, c, path)
	require.NoError(t, err)
	for i := range 2 {
		_, err = c.Set(ctx, path, []byte{byte(i)}, -1)
		require.NoError(t, err)
		hears(t, w, framework.WatchEvent{Type: framework.NodeDataChanged, Path: path})
	}
	awaitOneShot(t, once, zk.EventNodeDataChanged, "the one-shot watch did not fire")
}

func TestWatch_PersistentWatchHearsOnAfterAChildOneShotOfItsPath(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	w, err := c.Watch(ctx, path, framework.WatchPersistent)
	require.NoError(t, err)
	defer w.Close(ctx)
	once, err := childrenW(ctx, c, path)
	require.NoError(t, err)
	for _, name := range []string{"a", "b"} {
		_, err = c.Create(ctx, path+"/"+name, nil, framework.Persistent)
		require.NoError(t, err)
		hears(t, w, framework.WatchEvent{Type: framework.NodeChildrenChanged, Path: path})
	}
	awaitOneShot(t, once, zk.EventNodeChildrenChanged, "the one-shot watch did not fire")
}

func TestWatch_RecursiveWatchHearsOnAfterAOneShotOfItsPath(t *testing.T) {
	for name, set := range map[string]oneShot{"GetW": getW, "ExistsW": existsW, "ChildrenW": childrenW} {
		t.Run(name, func(t *testing.T) {
			c := connect(t, zktest.Servers(t))
			ctx := testContext(t)
			path := zktest.UniquePath(t)
			require.NoError(t, c.EnsurePath(ctx, path))
			w, err := c.Watch(ctx, path, framework.WatchRecursive)
			require.NoError(t, err)
			defer w.Close(ctx)
			_, err = set(ctx, c, path)
			require.NoError(t, err)
			for _, name := range []string{"a", "b"} {
				_, err = c.Create(ctx, path+"/"+name, nil, framework.Persistent)
				require.NoError(t, err)
				hears(t, w, framework.WatchEvent{Type: framework.NodeCreated, Path: path + "/" + name})
			}
		})
	}
}

func TestWatch_ExistsWOfAMissingNodeLeavesItsPersistentWatchHearing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	w, err := c.Watch(ctx, path, framework.WatchPersistent)
	require.NoError(t, err)
	defer w.Close(ctx)
	once, err := existsW(ctx, c, path)
	require.NoError(t, err)
	require.NoError(t, c.EnsurePath(ctx, path))
	hears(t, w, framework.WatchEvent{Type: framework.NodeCreated, Path: path})
	awaitOneShot(t, once, zk.EventNodeCreated, "the one-shot watch did not fire")
	_, err = c.Set(ctx, path, []byte("x"), -1)
	require.NoError(t, err)
	hears(t, w, framework.WatchEvent{Type: framework.NodeDataChanged, Path: path})
}

// A one-shot watch of a node below a recursively watched one, or of a
// child of a persistently watched one, is of another path: the server
// keeps both.
func TestWatch_OneShotsOfOtherPathsLeaveAPersistentWatchHearing(t *testing.T) {
	for name, set := range map[string]oneShot{"GetW": getW, "ExistsW": existsW, "ChildrenW": childrenW} {
		for _, mode := range []framework.WatchMode{framework.WatchRecursive, framework.WatchPersistent} {
			t.Run(name+"/"+mode.String(), func(t *testing.T) {
				c := connect(t, zktest.Servers(t))
				ctx := testContext(t)
				path := zktest.UniquePath(t)
				require.NoError(t, c.EnsurePath(ctx, path+"/a"))
				w, err := c.Watch(ctx, path, mode)
				require.NoError(t, err)
				defer w.Close(ctx)
				once, err := set(ctx, c, path+"/a")
				require.NoError(t, err)
				for i := range 2 {
					_, err = c.Create(ctx, path+"/a/"+string(rune('x'+i)), nil, framework.Persistent)
					require.NoError(t, err)
					_, err = c.Set(ctx, path+"/a", []byte{byte(i)}, -1)
					require.NoError(t, err)
					if mode == framework.WatchRecursive {
						hears(t, w, framework.WatchEvent{Type: framework.NodeCreated, Path: path + "/a/" + string(rune('x'+i))})
						hears(t, w, framework.WatchEvent{Type: framework.NodeDataChanged, Path: path + "/a"})
					}
				}
				require.NoError(t, c.Delete(ctx, path+"/a/x", -1))
				require.NoError(t, c.Delete(ctx, path+"/a/y", -1))
				require.NoError(t, c.Delete(ctx, path+"/a", -1))
				if mode == framework.WatchRecursive {
					hears(t, w, framework.WatchEvent{Type: framework.NodeDeleted, Path: path + "/a/x"})
					hears(t, w, framework.WatchEvent{Type: framework.NodeDeleted, Path: path + "/a/y"})
					hears(t, w, framework.WatchEvent{Type: framework.NodeDeleted, Path: path + "/a"})
				} else {
					hears(t, w, framework.WatchEvent{Type: framework.NodeChildrenChanged, Path: path})
				}
				select {
				case <-once:
				case <-time.After(5 * time.Second):
					t.Fatal("the one-shot watch did not fire")
				}
			})
		}
	}
}

// The reverse order: a recursive watch set where a child one-shot watch
// is (3.8 sets the recursive mode in the child manager too) does not
// silence it, even for a child made before the client set it again.
func TestWatch_AChildOneShotHearsOnAfterARecursiveWatchOfItsPath(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	_, err := c.Watch(ctx, "/", framework.WatchPersistent) // the server's version is asked
	require.NoError(t, err)
	once, err := childrenW(ctx, c, path)
	require.NoError(t, err)
	// The child is made right behind the addWatch, before the client has
	// read its answer: the recursive watch tells it as a creation only.
	proxy.HoldRepliesFrom(zktest.OpAddWatch)
	watched := make(chan *framework.Watch, 1)
	go func() { // ends with the addWatch's answer
		w, err := c.Watch(ctx, path, framework.WatchRecursive)
		assert.NoError(t, err)
		watched <- w
	}()
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpAddWatch) == 2 }, 10*time.Second, time.Millisecond)
	created := make(chan error, 1)
	go func() { // ends with the create's answer
		_, err := c.Create(ctx, path+"/a", nil, framework.Persistent)
		created <- err
	}()
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpCreate) == 1 }, 10*time.Second, time.Millisecond)
	proxy.ReleaseReplies()
	w := <-watched
	require.NotNil(t, w)
	defer w.Close(ctx)
	require.NoError(t, <-created)
	hears(t, w, framework.WatchEvent{Type: framework.NodeCreated, Path: path + "/a"})
	awaitOneShot(t, once, zk.EventNodeChildrenChanged, "the child one-shot watch was silenced")
}

// A one-shot watch that rode on a persistent watch is set on the server
// when that watch goes (a second after its Close), and fires for a
// change made after.
func TestWatch_OneShotsOfAClosedPersistentWatchsPathFireAfterItsRemoval(t *testing.T) {
	for _, mode := range []framework.WatchMode{framework.WatchPersistent, framework.WatchRecursive} {
		t.Run(mode.String(), func(t *testing.T) {
			proxy := zktest.NewProxy(t, zktest.Servers(t))
			c := connect(t, proxy.Addr())
			ctx := testContext(t)
			path := zktest.UniquePath(t)
			require.NoError(t, c.EnsurePath(ctx, path))
			w, err := c.Watch(ctx, path, mode)
			require.NoError(t, err)
			data, err := getW(ctx, c, path)
			require.NoError(t, err)
			children, err := childrenW(ctx, c, path)
			require.NoError(t, err)
			require.NoError(t, w.Close(ctx))
			sent := proxy.Sent()
			require.Eventually(t, func() bool { return proxy.Sent() > sent }, 10*time.Second, time.Millisecond,
				"the watch is taken off the server after its linger")
			// The client's next request is answered after the removal's.
			_, _, err = c.Get(ctx, path)
			require.NoError(t, err)
			_, err = c.Create(ctx, path+"/a", nil, framework.Persistent)
			require.NoError(t, err)
			_, err = c.Set(ctx, path, []byte("x"), -1)
			require.NoError(t, err)
			awaitOneShot(t, children, zk.EventNodeChildrenChanged, "the child one-shot watch was lost with the persistent watch")
			awaitOneShot(t, data, zk.EventNodeDataChanged, "the data one-shot watch was lost with the persistent watch")
		})
	}
}

// After a reconnect the client sets the persistent watch and the
// one-shot watches of its path again, in one request: the server sets
// the one-shot ones first, and the recursive mode displaces a child
// one-shot watch, which the client sets again.
func TestWatch_AReconnectLeavesAPathsPersistentAndOneShotWatchesHearing(t *testing.T) {
	for _, mode := range []framework.WatchMode{framework.WatchPersistent, framework.WatchRecursive} {
		t.Run(mode.String(), func(t *testing.T) {
			proxy := zktest.NewProxy(t, zktest.Servers(t))
			c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
			states := recordStates(c)
			ctx := testContext(t)
			path := zktest.UniquePath(t)
			require.NoError(t, c.EnsurePath(ctx, path))
			w, err := c.Watch(ctx, path, mode)
			require.NoError(t, err)
			defer w.Close(ctx)
			children, err := childrenW(ctx, c, path)
			require.NoError(t, err)

			proxy.Cut()
			require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
			require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)
			assert.Equal(t, framework.WatchResumed, nextWatchEvent(t, w).Type)
			data, err := getW(ctx, c, path) // on the new connection
			require.NoError(t, err)
			_, err = c.Create(ctx, path+"/a", nil, framework.Persistent)
			require.NoError(t, err)
			awaitOneShot(t, children, zk.EventNodeChildrenChanged, "the child one-shot watch was silenced")
			for i := range 2 {
				_, err = c.Set(ctx, path, []byte{byte(i)}, -1)
				require.NoError(t, err)
			}
			awaitOneShot(t, data, zk.EventNodeDataChanged, "the data one-shot watch did not fire")
			want := []framework.WatchEvent{
				{Type: framework.NodeDataChanged, Path: path},
				{Type: framework.NodeDataChanged, Path: path},
			}
			if mode == framework.WatchPersistent {
				want = append([]framework.WatchEvent{{Type: framework.NodeChildrenChanged, Path: path}}, want...)
			} else {
				want = append([]framework.WatchEvent{{Type: framework.NodeCreated, Path: path + "/a"}}, want...)
			}
			for _, ev := range want {
				hears(t, w, ev)
			}
		})
	}
}

// In a new session, the watch set again hears on after a one-shot watch
// of its path.
func TestWatch_AfterAnExpiryAOneShotLeavesTheWatchSetAgainHearing(t *testing.T) {
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
	before, err := getW(ctx, c, path)
	require.NoError(t, err)

	proxy.Pause()
	for s := states.next(t, 10*time.Second); s.State != framework.Lost; s = states.next(t, 10*time.Second) {
	}
	time.Sleep(timeout) // the server expires it too
	proxy.Resume()
	ev := awaitOneShot(t, before, zk.EventNotWatching, "the one-shot watch of the lost session was not ended")
	assert.ErrorIs(t, ev.Err, zk.ErrSessionExpired)
	assert.Equal(t, framework.WatchSessionChanged, nextWatchEvent(t, w).Type)
	after, err := existsW(ctx, c, path)
	require.NoError(t, err)
	for _, name := range []string{"a", "b"} {
		_, err = c.Create(ctx, path+"/"+name, nil, framework.Persistent)
		require.NoError(t, err)
		hears(t, w, framework.WatchEvent{Type: framework.NodeCreated, Path: path + "/" + name})
	}
	require.NoError(t, c.Delete(ctx, path+"/a", -1))
	hears(t, w, framework.WatchEvent{Type: framework.NodeDeleted, Path: path + "/a"})
	_, err = c.Set(ctx, path, []byte("x"), -1)
	require.NoError(t, err)
	awaitOneShot(t, after, zk.EventNodeDataChanged, "the one-shot watch did not fire")
}

// A one-shot watch set on a new connection before its restore is sent
// goes to the server before the restored watch, which then serves it or,
// for a child watch and a recursive mode, displaces it: each still hears.
func TestWatch_AOneShotSetBeforeTheRestoreLeavesBothHearing(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	w, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	defer w.Close(ctx)
	release := framework.HoldRestores(c)
	proxy.Cut()
	require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
	require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)
	children, err := childrenW(ctx, c, path)
	require.NoError(t, err)
	data, err := getW(ctx, c, path)
	require.NoError(t, err)
	release()
	assert.Equal(t, framework.WatchResumed, nextWatchEvent(t, w).Type)

	for _, name := range []string{"a", "b"} {
		_, err = c.Create(ctx, path+"/"+name, nil, framework.Persistent)
		require.NoError(t, err)
		hears(t, w, framework.WatchEvent{Type: framework.NodeCreated, Path: path + "/" + name})
	}
	awaitOneShot(t, children, zk.EventNodeChildrenChanged, "the child one-shot watch was silenced")
	_, err = c.Set(ctx, path, []byte("x"), -1)
	require.NoError(t, err)
	hears(t, w, framework.WatchEvent{Type: framework.NodeDataChanged, Path: path})
	awaitOneShot(t, data, zk.EventNodeDataChanged, "the data one-shot watch did not fire")
}

// A one-shot watch set again by a reconnect's restore after a Watch of
// its path was set on the new connection: the restore sets the Watch's
// mode again after it, so the Watch hears on and the one-shot watch
// fires; whether the restore needs setWatches2 for the persistent watches
// of another path or not.
func TestWatch_AOneShotRestoredAfterAWatchOfItsPathLeavesBothHearing(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode framework.WatchMode
		set  oneShot
		fire zk.EventType
	}{
		{"GetW/recursive", framework.WatchRecursive, getW, zk.EventNodeDataChanged},
		{"ChildrenW/persistent", framework.WatchPersistent, childrenW, zk.EventNodeChildrenChanged},
	} {
		for _, other := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/other watch %v", tc.name, other), func(t *testing.T) {
				proxy := zktest.NewProxy(t, zktest.Servers(t))
				c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
				states := recordStates(c)
				ctx := testContext(t)
				path := zktest.UniquePath(t)
				require.NoError(t, c.EnsurePath(ctx, path))
				if other {
					o, err := c.Watch(ctx, path+"-other", framework.WatchRecursive)
					require.NoError(t, err)
					defer o.Close(ctx)
				}
				once, err := tc.set(ctx, c, path)
				require.NoError(t, err)
				release := framework.HoldRestores(c)
				proxy.Cut()
				require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
				require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)
				w, err := c.Watch(ctx, path, tc.mode)
				require.NoError(t, err)
				defer w.Close(ctx)
				restores := proxy.Requests(zktest.OpSetWatches) + proxy.Requests(zktest.OpSetWatches2)
				release()
				require.Eventually(t, func() bool {
					return proxy.Requests(zktest.OpSetWatches)+proxy.Requests(zktest.OpSetWatches2) > restores
				}, 10*time.Second, time.Millisecond, "the restore was not sent")
				_, _, err = c.Get(ctx, path) // answered after the restore
				require.NoError(t, err)

				for _, name := range []string{"a", "b"} {
					_, err = c.Create(ctx, path+"/"+name, nil, framework.Persistent)
					require.NoError(t, err)
					_, err = c.Set(ctx, path, []byte(name), -1)
					require.NoError(t, err)
					if tc.mode == framework.WatchRecursive {
						hears(t, w, framework.WatchEvent{Type: framework.NodeCreated, Path: path + "/" + name})
					} else {
						hears(t, w, framework.WatchEvent{Type: framework.NodeChildrenChanged, Path: path})
					}
					hears(t, w, framework.WatchEvent{Type: framework.NodeDataChanged, Path: path})
				}
				awaitOneShot(t, once, tc.fire, "the one-shot watch did not fire")
			})
		}
	}
}
