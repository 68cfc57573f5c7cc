package cache_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"path"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
)

func TestCache_LoadsTheSubtreeAndSaysInitializedOnce(t *testing.T) {
	zktest.ServerKinds(t, func(t *testing.T, proxy *zktest.Proxy) {
		c := connect(t, proxy.Addr())
		root := zktest.UniquePath(t)
		n := makeTree(t, c, root, 5)
		cc, seq := started(t, c, root)
		assert.Equal(t, n, cc.Len())
		assert.Equal(t, n, seq.Count(cache.Created))
		assert.Equal(t, 1, seq.Count(cache.Initialized))
		names, ok := cc.Children(root)
		assert.True(t, ok)
		assert.Equal(t, []string{"n00", "n01", "n02", "n03", "n04"}, names)
		e, ok := cc.Get(root + "/n01/m02")
		assert.True(t, ok)
		assert.Equal(t, root+"/n01/m02", string(e.Data))
		converges(t, c, cc, seq, -1)
	})
}

func TestCache_LoadOnTheRecursiveWatchTakesAFewMultiReads(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	root := zktest.UniquePath(t)
	makeTree(t, c, root, 30) // 931 nodes
	before := requests(proxy)
	started(t, c, root)
	// The watch, then root, its list, its children, their lists, theirs.
	assert.LessOrEqual(t, requests(proxy)-before, int64(8))
	assert.Zero(t, proxy.Requests(zktest.OpGetData), "no node read on its own")
}

// follow applies one write at a time and waits for the cache to show it,
// so that each write is an event of its own.
func TestCache_FollowsEachWriteWithItsEvent(t *testing.T) {
	zktest.ServerKinds(t, func(t *testing.T, proxy *zktest.Proxy) {
		c := connect(t, proxy.Addr())
		ctx := testContext(t)
		root := zktest.UniquePath(t)
		// Persistent, not a container: the server reaps an empty
		// container within a second, before the test deletes it.
		require.NoError(t, c.EnsurePath(ctx, path.Dir(root)))
		_, err := c.Create(ctx, root, nil, framework.Persistent)
		require.NoError(t, err)
		cc, err := cache.New(c, root)
		require.NoError(t, err)
		events := make(chan cache.Event, 64)
		cc.AddListener(func(ev cache.Event) { events <- ev })
		require.NoError(t, cc.Start(ctx))
		defer cc.Close(ctx)
		expect := func(typ cache.EventType, path, data string) {
			t.Helper()
			select {
			case ev := <-events:
				assert.Equal(t, typ, ev.Type)
				assert.Equal(t, path, ev.Path)
				assert.Equal(t, data, string(ev.Entry.Data))
			case <-time.After(10 * time.Second):
				t.Fatalf("no %s event of %s", typ, path)
			}
		}
		expect(cache.Created, root, "")
		expect(cache.Initialized, "", "")

		_, err = c.Create(ctx, root+"/a", []byte("1"), framework.Persistent)
		require.NoError(t, err)
		expect(cache.Created, root+"/a", "1")
		_, err = c.Set(ctx, root+"/a", []byte("2"), -1)
		require.NoError(t, err)
		expect(cache.Changed, root+"/a", "2")
		_, err = c.Create(ctx, root+"/a/b", []byte("3"), framework.Persistent)
		require.NoError(t, err)
		expect(cache.Created, root+"/a/b", "3")
		require.NoError(t, c.Delete(ctx, root+"/a/b", -1))
		expect(cache.Deleted, root+"/a/b", "")
		require.NoError(t, c.Delete(ctx, root+"/a", -1))
		expect(cache.Deleted, root+"/a", "")
		require.NoError(t, c.Delete(ctx, root, -1))
		expect(cache.Deleted, root, "")
		require.NoError(t, c.EnsurePath(ctx, root))
		expect(cache.Created, root, "")
		select {
		case ev := <-events:
			t.Fatalf("an event too many: %+v", ev)
		case <-time.After(200 * time.Millisecond):
		}
	})
}

func TestCache_ChangedCarriesTheEntryBefore(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	root := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, root))
	_, err := c.Set(ctx, root, []byte("before"), -1)
	require.NoError(t, err)
	cc, err := cache.New(c, root)
	require.NoError(t, err)
	changed := make(chan cache.Event, 1)
	cc.AddListener(cache.ForNode(root, func(ev cache.Event) {
		if ev.Type == cache.Changed {
			changed <- ev
		}
	}))
	require.NoError(t, cc.Start(ctx))
	require.NoError(t, cc.AwaitInitialized(ctx))
	defer cc.Close(ctx)
	_, err = c.Set(ctx, root, []byte("after"), -1)
	require.NoError(t, err)
	select {
	case ev := <-changed:
		assert.Equal(t, "before", string(ev.Old.Data))
		assert.Equal(t, "after", string(ev.Entry.Data))
		assert.Equal(t, ev.Old.Stat.Version+1, ev.Entry.Stat.Version)
	case <-time.After(10 * time.Second):
		t.Fatal("no change")
	}
}

// A node changes in place in the cache: a reader on another goroutine
// sees it before a change or after, never the data of one version with
// the Stat of another.
func TestCache_AReaderSeesANodeWholeWhileItChanges(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	root := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, root))
	cc, _ := started(t, c, root)
	stop, done := make(chan struct{}), make(chan struct{})
	torn := make(chan cache.Entry, 1)
	check := func(e cache.Entry) {
		if len(e.Data) != int(e.Stat.DataLength) {
			select {
			case torn <- e:
			default:
			}
		}
	}
	go func() { // reads until stop closes
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if e, ok := cc.Get(root); ok {
				check(e)
			}
			for _, e := range cc.Entries() {
				check(e)
			}
		}
	}()
	for i := range 50 {
		_, err := c.Set(ctx, root, bytes.Repeat([]byte("x"), i+1), -1)
		require.NoError(t, err)
	}
	assert.Eventually(t, func() bool {
		e, _ := cc.Get(root)
		return e.Stat.Version == 50
	}, 10*time.Second, 10*time.Millisecond)
	close(stop)
	<-done
	select {
	case e := <-torn:
		t.Errorf("%d bytes of data with the Stat of %d", len(e.Data), e.Stat.DataLength)
	default:
	}
}

func TestCache_MaxDepthKeepsTheShapesOfNodeAndPathChildrenCaches(t *testing.T) {
	zktest.ServerKinds(t, func(t *testing.T, proxy *zktest.Proxy) {
		c := connect(t, proxy.Addr())
		ctx := testContext(t)
		root := zktest.UniquePath(t)
		makeTree(t, c, root, 3)
		node, nodeSeq := started(t, c, root, cache.WithMaxDepth(0))
		children, childSeq := started(t, c, root, cache.WithMaxDepth(1))
		assert.Equal(t, 1, node.Len())
		assert.Equal(t, 4, children.Len())

		_, err := c.Create(ctx, root+"/n00/deep", nil, framework.Persistent)
		require.NoError(t, err)
		_, err = c.Create(ctx, root+"/new", nil, framework.Persistent)
		require.NoError(t, err)
		_, err = c.Set(ctx, root, []byte("root data"), -1)
		require.NoError(t, err)
		converges(t, c, node, nodeSeq, 0)
		converges(t, c, children, childSeq, 1)
		_, deep := children.Get(root + "/n00/deep")
		assert.False(t, deep)
	})
}

func TestCache_ForChildrenHearsTheChildrenOnly(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	root := zktest.UniquePath(t)
	makeTree(t, c, root, 2)
	cc, err := cache.New(c, root)
	require.NoError(t, err)
	heard := make(chan string, 16)
	cc.AddListener(cache.ForChildren(root, func(ev cache.Event) { heard <- ev.Type.String() + " " + ev.Path }))
	require.NoError(t, cc.Start(ctx))
	defer cc.Close(ctx)
	assert.Equal(t, "created "+root+"/n00", <-heard)
	assert.Equal(t, "created "+root+"/n01", <-heard)
	assert.Equal(t, "initialized ", <-heard)
	_, err = c.Create(ctx, root+"/n00/grandchild", nil, framework.Persistent)
	require.NoError(t, err)
	_, err = c.Create(ctx, root+"/n02", nil, framework.Persistent)
	require.NoError(t, err)
	assert.Equal(t, "created "+root+"/n02", <-heard)
}

func TestCache_WithoutDataKeepsStatsAndHearsChanges(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	root := zktest.UniquePath(t)
	makeTree(t, c, root, 2)
	cc, seq := started(t, c, root, cache.WithoutData())
	for _, e := range cc.Entries() {
		assert.Nil(t, e.Data, e.Path)
		assert.NotZero(t, e.Stat.Czxid, e.Path)
	}
	_, err := c.Set(ctx, root+"/n01", []byte("x"), -1)
	require.NoError(t, err)
	assert.Eventually(t, func() bool { return seq.Count(cache.Changed) == 1 }, 10*time.Second, 20*time.Millisecond)
	e, _ := cc.Get(root + "/n01")
	assert.Equal(t, int32(1), e.Stat.Version)
}

func TestCache_CompressedDataIsKeptUncompressed(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	root := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, root))
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write([]byte("plain text"))
	require.NoError(t, zw.Close())
	_, err := c.Create(ctx, root+"/z", buf.Bytes(), framework.Persistent)
	require.NoError(t, err)
	_, err = c.Create(ctx, root+"/raw", []byte("not gzip"), framework.Persistent)
	require.NoError(t, err)
	cc, _ := started(t, c, root, cache.WithCompressedData())
	e, _ := cc.Get(root + "/z")
	assert.Equal(t, "plain text", string(e.Data))
	e, _ = cc.Get(root + "/raw")
	assert.Equal(t, "not gzip", string(e.Data), "data that is not gzip is kept as it is")
}

func TestCache_FilterLeavesOutASubtreeAndNeverReadsIt(t *testing.T) {
	zktest.ServerKinds(t, func(t *testing.T, proxy *zktest.Proxy) {
		c := connect(t, proxy.Addr())
		ctx := testContext(t)
		root := zktest.UniquePath(t)
		makeTree(t, c, root, 3)
		skip := root + "/n01"
		keep := func(p string) bool { return p != skip }
		cc, seq := started(t, c, root, cache.WithFilter(keep))
		assert.Equal(t, 1+2*4, cc.Len())
		_, err := c.Create(ctx, skip+"/later", nil, framework.Persistent)
		require.NoError(t, err)
		_, err = c.Create(ctx, root+"/n00/later", nil, framework.Persistent)
		require.NoError(t, err)
		assert.Eventually(t, func() bool { _, ok := cc.Get(root + "/n00/later"); return ok }, 10*time.Second, 20*time.Millisecond)
		for _, e := range cc.Entries() {
			assert.NotContains(t, e.Path, skip)
		}
		assert.Empty(t, seq.Violations())
	})
}

func TestCache_BadInputFailsTypedWithoutARequest(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	before := requests(proxy)
	for name, make := range map[string]func() (*cache.Cache, error){
		"nil client":     func() (*cache.Cache, error) { return cache.New(nil, "/a") },
		"bad path":       func() (*cache.Cache, error) { return cache.New(c, "a/") },
		"negative depth": func() (*cache.Cache, error) { return cache.New(c, "/a", cache.WithMaxDepth(-1)) },
		"nil filter":     func() (*cache.Cache, error) { return cache.New(c, "/a", cache.WithFilter(nil)) },
		"nil logger":     func() (*cache.Cache, error) { return cache.New(c, "/a", cache.WithLogger(nil)) },
		"nil option":     func() (*cache.Cache, error) { return cache.New(c, "/a", nil) },
	} {
		_, err := make()
		assert.ErrorIs(t, err, cache.ErrInvalidArgument, name)
	}
	assert.Equal(t, before, requests(proxy))
}

func TestCache_StartTwiceOrAfterCloseFails(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	root := zktest.UniquePath(t)
	cc, _ := started(t, c, root)
	assert.ErrorIs(t, cc.Start(ctx), cache.ErrStarted)
	closed, err := cache.New(c, root)
	require.NoError(t, err)
	require.NoError(t, closed.Close(ctx))
	assert.ErrorIs(t, closed.Start(ctx), cache.ErrClosed)
	assert.ErrorIs(t, closed.AwaitInitialized(ctx), cache.ErrClosed)
	ended, cancel := context.WithCancel(ctx)
	cancel()
	latent, err := cache.New(c, root)
	require.NoError(t, err)
	assert.ErrorIs(t, latent.Start(ended), context.Canceled)
	assert.NoError(t, latent.Start(ctx), "a start with an ended ctx leaves the cache unstarted")
	assert.NoError(t, latent.AwaitInitialized(ctx))
	assert.NoError(t, latent.Close(ctx))
}

// A server that cannot be reached delays the load, and never ends the
// cache: it loads once the server is back.
func TestCache_AnUnreachableServerDelaysTheLoadNotTheCache(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	root := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(testContext(t), root))
	proxy.Pause()
	cc, err := cache.New(c, root)
	require.NoError(t, err)
	require.NoError(t, cc.Start(testContext(t)))
	defer cc.Close(testContext(t))
	short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, cc.AwaitInitialized(short), context.DeadlineExceeded)
	proxy.Resume()
	proxy.Cut()
	require.NoError(t, cc.AwaitInitialized(testContext(t)))
	_, ok := cc.Get(root)
	assert.True(t, ok)
}

// Start's ctx ending while the load waits for its reads stops the cache,
// says so in Err, and removes its watch from the server.
func TestCache_StartsCtxEndingStopsTheCacheAndRemovesTheWatch(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	root := zktest.UniquePath(t)
	makeTree(t, c, root, 2)
	cc, err := cache.New(c, root)
	require.NoError(t, err)
	proxy.HoldRepliesFrom(zktest.OpMultiRead)
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, cc.Start(ctx))
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpMultiRead) > 0 }, 10*time.Second, time.Millisecond)
	cancel()
	proxy.ReleaseReplies()
	assert.ErrorIs(t, cc.AwaitInitialized(testContext(t)), context.Canceled)
	assert.ErrorIs(t, cc.Err(), context.Canceled)
	// The server has no watch of the client left: a write notifies nothing.
	assert.Eventually(t, func() bool {
		notified := proxy.Notifications()
		if _, err := c.Set(testContext(t), root, []byte("x"), -1); err != nil {
			return false
		}
		time.Sleep(50 * time.Millisecond)
		return notified == proxy.Notifications()
	}, 10*time.Second, 10*time.Millisecond)
	assert.NotZero(t, proxy.Requests(zktest.OpRemoveWatches))
}

func TestCache_CloseFromAListenerReturns(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	root := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, root))
	cc, err := cache.New(c, root)
	require.NoError(t, err)
	closed := make(chan error, 1)
	cc.AddListener(func(ev cache.Event) {
		if ev.Type == cache.Changed {
			closed <- cc.Close(context.Background())
		}
	})
	require.NoError(t, cc.Start(ctx))
	require.NoError(t, cc.AwaitInitialized(ctx))
	_, err = c.Set(ctx, root, []byte("x"), -1)
	require.NoError(t, err)
	select {
	case err := <-closed:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Close in a listener did not return")
	}
	assert.NoError(t, cc.Close(ctx))
	assert.NoError(t, cc.Err())
}

func TestCache_AClosedClientEndsTheCache(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	root := zktest.UniquePath(t)
	cc, _ := started(t, c, root)
	require.NoError(t, c.Close())
	assert.Eventually(t, func() bool { return errors.Is(cc.Err(), cache.ErrClosed) }, 10*time.Second, 10*time.Millisecond)
}

// A client closed while the cache asks what changed during a reconnect
// ends the cache: the failed catch-up is not asked again and again.
func TestCache_AClientClosedDuringTheCatchUpEndsTheCache(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	root := zktest.UniquePath(t)
	makeTree(t, c, root, 2)
	cc, _ := started(t, c, root)
	probes := proxy.Requests(zktest.OpSetWatches)
	proxy.HoldRepliesFrom(zktest.OpSetWatches) // the catch-up's question goes unanswered
	proxy.Cut()
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpSetWatches) > probes }, 10*time.Second, time.Millisecond,
		"the catch-up asks after the reconnect")
	require.NoError(t, c.Close())
	select {
	case <-cc.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the cache goes on after its client was closed")
	}
	assert.ErrorIs(t, cc.Err(), cache.ErrClosed)
}

func TestCache_DoneClosesWhenTheCacheStops(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx, cancel := context.WithCancel(testContext(t))
	cc, err := cache.New(c, zktest.UniquePath(t))
	require.NoError(t, err)
	require.NoError(t, cc.Start(ctx))
	require.NoError(t, cc.AwaitInitialized(ctx))
	select {
	case <-cc.Done():
		t.Fatal("done while running")
	default:
	}
	cancel()
	select {
	case <-cc.Done():
		assert.ErrorIs(t, cc.Err(), context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("not done after its ctx ended")
	}
}
