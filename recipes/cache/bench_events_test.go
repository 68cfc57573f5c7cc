package cache_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
)

// loadedWide starts a cache of a wide tree of 100-byte values (100
// parents of 100 children) whose events go to the returned channel.
func loadedWide(b *testing.B) (*framework.Client, string, *cache.Cache, <-chan cache.Event) {
	c := connect(b, zktest.Servers(b))
	root := zktest.UniquePath(b)
	makeWideTree(b, c, root, 100, 100)
	cc, err := cache.New(c, root)
	require.NoError(b, err)
	require.NoError(b, cc.Start(testContext(b)))
	require.NoError(b, cc.AwaitInitialized(testContext(b)))
	b.Cleanup(func() { _ = cc.Close(context.Background()) })
	events := make(chan cache.Event, 1024)
	cc.AddListener(func(ev cache.Event) { events <- ev }) // after the load: its events are not wanted
	return c, root, cc, events
}

// leafPaths are the paths of loadedWide's leaves, one parent after another.
func leafPaths(root string) []string {
	paths := make([]string, 0, 10000)
	for j := range 100 {
		for i := range 100 {
			paths = append(paths, fmt.Sprintf("%s/p%03d/n%d", root, i, j))
		}
	}
	return paths
}

// awaitEvent takes events until one of type t at p.
func awaitEvent(b *testing.B, events <-chan cache.Event, t cache.EventType, p string) {
	ctx := testContext(b)
	for {
		select {
		case ev := <-events:
			if ev.Type == t && ev.Path == p {
				return
			}
		case <-ctx.Done():
			b.Fatalf("no %s event of %s", t, p)
		}
	}
}

// BenchmarkCache_Changed is the event path of a change, end to end: a
// write of a cached node's data until the cache's Changed event, with a
// loaded tree of 10,101 nodes. allocs/op counts the whole process: the
// writer's request, the notification, the cache's read and its event.
func BenchmarkCache_Changed(b *testing.B) {
	c, root, _, events := loadedWide(b)
	ctx := testContext(b)
	value := make([]byte, 100)
	paths := leafPaths(root)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		p := paths[i%len(paths)]
		_, err := c.Set(ctx, p, value, -1)
		require.NoError(b, err)
		awaitEvent(b, events, cache.Changed, p)
	}
}

// BenchmarkCache_CreatedDeleted is the event path of a new node and its
// deletion: a create until the Created event, then a delete until the
// Deleted event, under a parent of 100 cached children.
func BenchmarkCache_CreatedDeleted(b *testing.B) {
	c, root, _, events := loadedWide(b)
	ctx := testContext(b)
	value := make([]byte, 100)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		p := fmt.Sprintf("%s/p%03d/new%s", root, i%100, strconv.Itoa(i))
		_, err := c.Create(ctx, p, value, framework.Persistent)
		require.NoError(b, err)
		awaitEvent(b, events, cache.Created, p)
		require.NoError(b, c.Delete(ctx, p, -1))
		awaitEvent(b, events, cache.Deleted, p)
	}
}

// BenchmarkCache_Get reads cached nodes of a loaded tree of 10,101 nodes,
// two levels below the root.
func BenchmarkCache_Get(b *testing.B) {
	_, root, cc, _ := loadedWide(b)
	paths := leafPaths(root)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, ok := cc.Get(paths[i%len(paths)]); !ok {
			b.Fatal("not cached")
		}
	}
}

// BenchmarkCache_Children lists the cached children of a node of 100.
func BenchmarkCache_Children(b *testing.B) {
	_, root, cc, _ := loadedWide(b)
	parents := make([]string, 100)
	for i := range parents {
		parents[i] = fmt.Sprintf("%s/p%03d", root, i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if names, _ := cc.Children(parents[i%len(parents)]); len(names) != 100 {
			b.Fatalf("%d children", len(names))
		}
	}
}

// BenchmarkCache_Entries takes every cached node of a tree of 10,101.
func BenchmarkCache_Entries(b *testing.B) {
	_, _, cc, _ := loadedWide(b)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if n := len(cc.Entries()); n != 10101 {
			b.Fatalf("%d entries", n)
		}
	}
}
