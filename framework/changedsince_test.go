package framework_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

func TestChangedSince_ReportsWhatChangedAfterTheZxidAndNothingElse(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	for _, p := range []string{path + "/data", path + "/gone", path + "/parent", path + "/still"} {
		_, err := c.Create(ctx, p, []byte("v"), framework.Persistent)
		require.NoError(t, err)
	}
	stat, err := c.Set(ctx, path+"/still", []byte("last before"), -1)
	require.NoError(t, err)
	since := stat.Mzxid

	_, err = c.Set(ctx, path+"/data", []byte("after"), -1)
	require.NoError(t, err)
	require.NoError(t, c.Delete(ctx, path+"/gone", -1))
	_, err = c.Create(ctx, path+"/parent/child", nil, framework.Persistent)
	require.NoError(t, err)
	_, err = c.Create(ctx, path+"/came", nil, framework.Persistent)
	require.NoError(t, err)

	got, err := c.ChangedSince(ctx, since,
		[]string{path + "/data", path + "/gone", path + "/parent", path + "/still"},
		[]string{path + "/came", path + "/never"})
	require.NoError(t, err)
	assert.ElementsMatch(t, []framework.WatchEvent{
		{Type: framework.NodeDataChanged, Path: path + "/data"},
		{Type: framework.NodeDeleted, Path: path + "/gone"},
		{Type: framework.NodeChildrenChanged, Path: path + "/parent"},
		{Type: framework.NodeCreated, Path: path + "/came"},
	}, got)

	none, err := c.ChangedSince(ctx, stat.Mzxid+100, nil, nil)
	require.NoError(t, err)
	assert.Empty(t, none)
}

func TestChangedSince_ANamespacedClientAsksAndHearsInItsOwnPaths(t *testing.T) {
	root := zktest.UniquePath(t)
	plain := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	require.NoError(t, plain.EnsurePath(ctx, root+"/n"))
	c := connect(t, zktest.Servers(t), framework.WithNamespace(root[1:]))
	_, stat, err := c.Get(ctx, "/n")
	require.NoError(t, err)
	_, err = plain.Set(ctx, root+"/n", []byte("x"), -1)
	require.NoError(t, err)
	got, err := c.ChangedSince(ctx, stat.Mzxid, []string{"/n"}, nil)
	require.NoError(t, err)
	assert.Equal(t, []framework.WatchEvent{{Type: framework.NodeDataChanged, Path: "/n"}}, got)
}

// The zxid of WatchResumed finds the change made while the client was
// away, which the persistent watch could not tell.
func TestChangedSince_FromWatchResumedFindsWhatChangedWhileAway(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path+"/a"))
	require.NoError(t, c.EnsurePath(ctx, path+"/b"))
	w, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	defer w.Close(ctx)

	proxy.Cut()
	require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
	other := connect(t, zktest.Servers(t))
	_, err = other.Set(ctx, path+"/b", []byte("while away"), -1)
	require.NoError(t, err)
	require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)
	ev := nextWatchEvent(t, w)
	require.Equal(t, framework.WatchResumed, ev.Type)
	require.NotZero(t, ev.Zxid)

	got, err := c.ChangedSince(ctx, ev.Zxid, []string{path, path + "/a", path + "/b"}, nil)
	require.NoError(t, err)
	assert.Equal(t, []framework.WatchEvent{{Type: framework.NodeDataChanged, Path: path + "/b"}}, got)
}

func TestChangedSince_BadPathFailsWithoutARequest(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	before := proxy.Requests(zktest.OpSetWatches)
	_, err := c.ChangedSince(testContext(t), 1, []string{"/ok", "no-slash"}, nil)
	require.ErrorIs(t, err, framework.ErrInvalidPath)
	assert.Equal(t, before, proxy.Requests(zktest.OpSetWatches))
}

// ZooKeeper 3.6 to 3.8 keep one watch mode per path and connection: a
// one-shot probe of the path of a persistent watch would replace it.
func TestChangedSince_KeepsThePersistentWatchesOfThePathsItAsksOf(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path+"/p"))
	recursive, err := c.Watch(ctx, path, framework.WatchRecursive)
	require.NoError(t, err)
	defer recursive.Close(ctx)
	persistent, err := c.Watch(ctx, path+"/p", framework.WatchPersistent)
	require.NoError(t, err)
	defer persistent.Close(ctx)
	stat, err := c.Set(ctx, path, []byte("before"), -1)
	require.NoError(t, err)
	assert.Equal(t, framework.NodeDataChanged, nextWatchEvent(t, recursive).Type)

	_, err = c.Set(ctx, path, []byte("after"), -1)
	require.NoError(t, err)
	_, err = c.Create(ctx, path+"/p/child", nil, framework.Persistent)
	require.NoError(t, err)
	got, err := c.ChangedSince(ctx, stat.Mzxid, []string{path, path + "/p"}, nil)
	require.NoError(t, err)
	assert.ElementsMatch(t, []framework.WatchEvent{
		{Type: framework.NodeDataChanged, Path: path},
		{Type: framework.NodeChildrenChanged, Path: path + "/p"},
	}, got)
	for range 2 { // the changes above, told before the probe
		nextWatchEvent(t, recursive)
	}
	nextWatchEvent(t, persistent)

	_, err = c.Create(ctx, path+"/q", nil, framework.Persistent)
	require.NoError(t, err)
	assert.Equal(t, framework.WatchEvent{Type: framework.NodeCreated, Path: path + "/q"}, nextWatchEvent(t, recursive), "the recursive watch stays")
	_, err = c.Set(ctx, path+"/p", []byte("x"), -1)
	require.NoError(t, err)
	assert.Equal(t, framework.WatchEvent{Type: framework.NodeDataChanged, Path: path + "/p"}, nextWatchEvent(t, persistent), "the persistent watch stays")
	_, err = c.Set(ctx, path+"/p", []byte("y"), -1)
	require.NoError(t, err)
	assert.Equal(t, framework.WatchEvent{Type: framework.NodeDataChanged, Path: path + "/p"}, nextWatchEvent(t, persistent), "and is not a one-shot one")
}

// ChangedSince asks a path with a one-shot watch only if no mode of the
// client's is on it as its request is written: a Watch of the path set
// after the call chose to ask it, and before the request went out, is not
// replaced by the one-shot watch (ZOOKEEPER-4466) and hears on.
func TestChangedSince_AWatchSetAsTheCallBeginsHearsOn(t *testing.T) {
	for _, mode := range []framework.WatchMode{framework.WatchPersistent, framework.WatchRecursive} {
		t.Run(mode.String(), func(t *testing.T) {
			c := connect(t, zktest.Servers(t))
			ctx := testContext(t)
			path := zktest.UniquePath(t)
			require.NoError(t, c.EnsurePath(ctx, path))
			_, stat, err := c.Get(ctx, path)
			require.NoError(t, err)
			_, err = c.Create(ctx, path+"/c", nil, framework.Persistent)
			require.NoError(t, err)
			waiting, release := framework.HoldProbes(c)
			type answer struct {
				evs []framework.WatchEvent
				err error
			}
			answered := make(chan answer, 1)
			go func() { // ends with the call
				evs, err := c.ChangedSince(ctx, stat.Mzxid, []string{path}, nil)
				answered <- answer{evs, err}
			}()
			select {
			case <-waiting:
			case <-time.After(10 * time.Second):
				t.Fatal("ChangedSince sent nothing")
			}
			w, err := c.Watch(ctx, path, mode)
			require.NoError(t, err)
			defer w.Close(ctx)
			release()
			a := <-answered
			require.NoError(t, a.err)
			assert.Equal(t, []framework.WatchEvent{{Type: framework.NodeChildrenChanged, Path: path}}, a.evs)

			for _, name := range []string{"a", "b"} { // more than a one-shot watch hears
				_, err = c.Create(ctx, path+"/"+name, nil, framework.Persistent)
				require.NoError(t, err)
				_, err = c.Set(ctx, path, []byte(name), -1)
				require.NoError(t, err)
				if mode == framework.WatchRecursive {
					hears(t, w, framework.WatchEvent{Type: framework.NodeCreated, Path: path + "/" + name})
				} else {
					hears(t, w, framework.WatchEvent{Type: framework.NodeChildrenChanged, Path: path})
				}
				hears(t, w, framework.WatchEvent{Type: framework.NodeDataChanged, Path: path})
			}
		})
	}
}
