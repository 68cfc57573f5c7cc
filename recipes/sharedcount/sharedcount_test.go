package sharedcount_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

func TestNew_RejectsBadInputWithoutARequest(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	before := requests()
	for name, f := range map[string]func() (*sharedcount.SharedCount, error){
		"nil client":    func() (*sharedcount.SharedCount, error) { return sharedcount.New(nil, "/n", 0) },
		"relative path": func() (*sharedcount.SharedCount, error) { return sharedcount.New(c, "n", 0) },
		"root":          func() (*sharedcount.SharedCount, error) { return sharedcount.New(c, "/", 0) },
		"nil option":    func() (*sharedcount.SharedCount, error) { return sharedcount.New(c, "/n", 0, nil) },
	} {
		sc, err := f()
		require.ErrorIs(t, err, sharedcount.ErrInvalidArgument, name)
		assert.Nil(t, sc, name)
	}
	assert.Equal(t, before, requests(), "nothing reached the server")
}

func TestSharedCount_FirstReadCreatesTheNodeWithTheSeed(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t) + "/count"
	sc := newCount(t, c, path, 7)
	v, err := sc.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, sharedcount.Value{Count: 7, Version: 0}, v)
	data, _, err := c.Get(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, []byte{0, 0, 0, 7}, data)

	v, err = newCount(t, c, path, 99).Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, int32(7), v.Count, "another seed does not overwrite an existing count")
}

func TestSharedCount_WithoutCreateNeverWrites(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	sc := newCount(t, c, path, 1, sharedcount.WithoutCreate())
	_, err := sc.Get(ctx)
	require.ErrorIs(t, err, zk.ErrNoNode)
	_, _, err = sc.Cached(ctx)
	require.ErrorIs(t, err, zk.ErrNoNode)
	require.ErrorIs(t, sc.Set(ctx, 3), zk.ErrNoNode)
	ok, _, err := c.Exists(ctx, path)
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestSharedCount_SetAndTrySet(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	sc := newCount(t, c, zktest.UniquePath(t), 0)
	require.NoError(t, sc.Set(ctx, 5), "Set creates a missing node with its value")
	v, err := sc.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, int32(5), v.Count)

	ok, err := sc.TrySet(ctx, 6, v.Version+1)
	require.NoError(t, err)
	assert.False(t, ok, "a wrong version does not write")
	ok, err = sc.TrySet(ctx, 6, v.Version)
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = sc.TrySet(ctx, 8, v.Version)
	require.NoError(t, err)
	assert.False(t, ok, "the version has moved on")
	got, err := sc.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, sharedcount.Value{Count: 6, Version: v.Version + 1}, got)
}

// Of several writers racing from one version, exactly one wins.
func TestSharedCount_ConcurrentTrySetHasOneWinner(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	v, err := newCount(t, c, path, 0).Get(ctx)
	require.NoError(t, err)
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 8 {
		sc := newCount(t, connect(t, zktest.Servers(t)), path, 0)
		wg.Go(func() { // ends after one try
			ok, err := sc.TrySet(ctx, int32(i+1), v.Version)
			assert.NoError(t, err)
			if ok {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), wins.Load())
}

func TestSharedCount_MalformedNodeIsATypedError(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	_, err := c.Create(ctx, path, []byte("12345"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	sc := newCount(t, c, path, 0)
	_, err = sc.Get(ctx)
	require.ErrorIs(t, err, sharedcount.ErrMalformedCount)
	_, changed, err := sc.Cached(ctx)
	require.ErrorIs(t, err, sharedcount.ErrMalformedCount)
	require.NotNil(t, changed, "a malformed count can be waited on for a repair")
	_, err = sc.Watch(ctx)
	require.ErrorIs(t, err, sharedcount.ErrMalformedCount)

	require.NoError(t, sc.Set(ctx, 4), "Set repairs it")
	waitClosed(t, changed)
	v, _, err := sc.Cached(ctx)
	require.NoError(t, err)
	assert.Equal(t, int32(4), v.Count)
}

// Cached asks the server only when its watch has fired.
func TestSharedCount_CachedAsksNothingWhileWatched(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	other := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	sc := newCount(t, c, path, 2)
	v, changed, err := sc.Cached(ctx)
	require.NoError(t, err)
	assert.Equal(t, int32(2), v.Count)

	before := requests()
	for range 5 {
		again, ch, err := sc.Cached(ctx)
		require.NoError(t, err)
		assert.Equal(t, v, again)
		assert.Equal(t, changed, ch)
	}
	assert.Equal(t, before, requests(), "no request while the watch stands")

	require.NoError(t, newCount(t, other, path, 0).Set(ctx, 3))
	waitClosed(t, changed)
	v, _, err = sc.Cached(ctx)
	require.NoError(t, err)
	assert.Equal(t, int32(3), v.Count)
}

func TestSharedCount_WatchFollowsChangesAndEndsWithTheContext(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	watchCtx, cancel := context.WithCancel(ctx)
	ch, err := newCount(t, c, path, 1).Watch(watchCtx)
	require.NoError(t, err)
	assert.Equal(t, int32(1), next(t, ch).Count, "the current value first")

	writer := newCount(t, other, path, 0)
	for n := int32(2); n <= 4; n++ {
		require.NoError(t, writer.Set(ctx, n))
		assert.Equal(t, n, next(t, ch).Count)
	}
	cancel()
	require.Eventually(t, func() bool {
		select {
		case _, ok := <-ch:
			return !ok
		default:
			return false
		}
	}, 10*time.Second, 10*time.Millisecond, "the channel is closed when ctx ends")
}

// A reader that falls behind gets the latest value, not a backlog.
func TestSharedCount_WatchCoalescesForASlowReader(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	sc := newCount(t, c, path, 0)
	ch, err := sc.Watch(ctx)
	require.NoError(t, err)
	for n := int32(1); n <= 20; n++ {
		require.NoError(t, sc.Set(ctx, n))
	}
	require.Eventually(t, func() bool {
		v, err := sc.Get(ctx)
		return err == nil && v.Count == 20
	}, 10*time.Second, 10*time.Millisecond)
	var last sharedcount.Value
	require.Eventually(t, func() bool {
		select {
		case last = <-ch:
		default:
		}
		return last.Count == 20
	}, 10*time.Second, 10*time.Millisecond, "the latest value arrives")
	assert.Empty(t, ch, "no backlog behind it")
}

// The watch is set again in the new session after the old one expired.
func TestSharedCount_WatchSurvivesSessionExpiry(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(2*time.Second))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	first := c.Session()
	ch, err := newCount(t, c, path, 1).Watch(ctx)
	require.NoError(t, err)
	assert.Equal(t, int32(1), next(t, ch).Count)

	proxy.Pause()
	waitClosed(t, first.Lost())
	proxy.Resume()
	require.Eventually(t, func() bool { s := c.Session(); return s != nil && s != first }, 20*time.Second, 20*time.Millisecond)
	require.NoError(t, newCount(t, other, path, 0).Set(ctx, 9))
	require.Eventually(t, func() bool {
		select {
		case v := <-ch:
			return v.Count == 9
		default:
			return false
		}
	}, 20*time.Second, 10*time.Millisecond, "the change after the expiry is seen")
}

func waitClosed(t testing.TB, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		t.Fatal("not closed within 20 s")
	}
}
