package cache_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
)

// liveHeap is the live heap after a collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// goroutinesFallTo returns the number of goroutines once it is n or less,
// or after 5 s (Eventually would count its condition's own goroutine).
func goroutinesFallTo(n int) int {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(5 * time.Second)
	for {
		got := runtime.NumGoroutine()
		if got <= n {
			return got
		}
		select {
		case <-tick.C:
		case <-timeout:
			return got
		}
	}
}

// Notifications that come while the cache's goroutine is busy (here held
// in a listener) wait as one read per node, not one per notification:
// 10,000 writes of 10 nodes add less than 256 kB of live heap until the
// cache takes them (a queue of them was 900 kB), and the cache then
// catches up with every write.
func TestCache_NotificationsWhileItIsBusyWaitAsOneReadPerNode(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	root := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, root))
	leaves := make([]string, 10)
	for i := range leaves {
		leaves[i] = fmt.Sprintf("%s/n%d", root, i)
		_, err := c.Create(ctx, leaves[i], nil, framework.Persistent)
		require.NoError(t, err)
	}
	cc, seq := started(t, c, root)
	held, release := make(chan struct{}), make(chan struct{})
	var hold, free sync.Once
	cc.AddListener(func(cache.Event) { hold.Do(func() { close(held); <-release }) })
	defer free.Do(func() { close(release) }) // before the cache's Close, which waits for the listener
	_, err := c.Set(ctx, leaves[0], []byte("first"), -1)
	require.NoError(t, err)
	select {
	case <-held:
	case <-ctx.Done():
		require.FailNow(t, "no event of the first write")
	}

	before := liveHeap()
	for round := range 10 {
		ops := make([]framework.Op, 0, 1000)
		for i := range 1000 {
			ops = append(ops, framework.SetOp(leaves[i%len(leaves)], []byte(fmt.Sprint(round, i)), -1))
		}
		_, err := c.Multi(ctx, ops...)
		require.NoError(t, err)
	}
	// The notifications of the writes came before the answers, on the
	// same connection: all of them are the cache's now.
	grown := liveHeap() - before
	free.Do(func() { close(release) })

	assert.Less(t, grown, int64(256<<10), "live heap grown by 10,000 notifications of 10 nodes, in bytes")
	converges(t, c, cc, seq, -1)
}

// A cache's notifications reach it on the client's reading goroutine and
// its own, no other: five loaded caches that heard a change add five
// goroutines, and none once closed.
func TestCache_RunsOnOneGoroutineOfItsOwn(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	root := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, root))
	base := runtime.NumGoroutine()
	const caches = 5
	ccs := make([]*cache.Cache, caches)
	for i := range ccs {
		ccs[i], _ = started(t, c, root)
	}
	_, err := c.Set(ctx, root, []byte("changed"), -1)
	require.NoError(t, err)
	for _, cc := range ccs {
		require.Eventually(t, func() bool {
			e, _ := cc.Get(root)
			return string(e.Data) == "changed"
		}, 10*time.Second, 10*time.Millisecond)
	}
	assert.LessOrEqual(t, goroutinesFallTo(base+caches)-base, caches, "goroutines added by %d caches", caches)

	for _, cc := range ccs {
		closeCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		require.NoError(t, cc.Close(closeCtx))
		cancel()
	}
	assert.LessOrEqual(t, goroutinesFallTo(base)-base, 0, "goroutines left by %d closed caches", caches)
}

// Notifications that come while the cache is busy with its reads after a
// reconnect (here held in a listener by the first change it tells of
// the catch-up) are read when it is free: none is lost.
func TestCache_NotificationsDuringTheReadsAfterAReconnectAreRead(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	root := zktest.UniquePath(t)
	require.NoError(t, other.EnsurePath(ctx, root))
	node := func(i int) string { return fmt.Sprintf("%s/n%02d", root, i) }
	for i := range 20 {
		_, err := other.Create(ctx, node(i), nil, framework.Persistent)
		require.NoError(t, err)
	}
	cc, seq := started(t, c, root)
	held, release := make(chan struct{}), make(chan struct{})
	var hold, free sync.Once
	cc.AddListener(func(ev cache.Event) {
		if ev.Type == cache.Changed && string(ev.Entry.Data) == "while away" {
			hold.Do(func() { close(held); <-release })
		}
	})
	defer free.Do(func() { close(release) }) // before the cache's Close, which waits for the listener

	awayAndBack(t, proxy, c, func() {
		_, err := other.Set(ctx, node(0), []byte("while away"), -1)
		require.NoError(t, err)
	})
	select {
	case <-held:
	case <-ctx.Done():
		require.FailNow(t, "the change made while away was not told")
	}
	for i := 1; i < 20; i++ {
		_, err := other.Set(ctx, node(i), []byte("while busy"), -1)
		require.NoError(t, err)
	}
	require.NoError(t, other.Delete(ctx, node(1), -1))
	_, err := other.Create(ctx, node(20), []byte("while busy"), framework.Persistent)
	require.NoError(t, err)
	_, _, err = c.Get(ctx, root) // its answer comes after the notifications
	require.NoError(t, err)
	free.Do(func() { close(release) })

	converges(t, other, cc, seq, -1)
	for i := 2; i < 20; i++ {
		e, _ := cc.Get(node(i))
		assert.Equal(t, "while busy", string(e.Data), node(i))
	}
	_, ok := cc.Get(node(1))
	assert.False(t, ok, "deleted while the cache was busy")
	_, ok = cc.Get(node(20))
	assert.True(t, ok, "created while the cache was busy")
}
