package reliability_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
)

// A cache whose watched directory the server reaps while it runs (its
// last child deleted) tells the child's deletion and then the
// directory's, and, when the directory is made again with a new child,
// the directory's creation and then the child's, and holds the new tree:
// with a recursive watch and with one-shot watches.
func TestReaped_RunningCacheTellsItsDirectoryReapedAndMadeAgain(t *testing.T) {
	zktest.ServerKinds(t, func(t *testing.T, proxy *zktest.Proxy) {
		c := zktest.Connect(t, proxy.Addr())
		observer := zktest.Connect(t, zktest.Servers(t))
		ctx := zktest.Context(t)
		root := zktest.UniquePath(t)
		dir := root + "/a/dir"
		_, err := observer.Create(ctx, dir+"/one", nil, framework.Persistent, framework.WithParents())
		require.NoError(t, err)

		ch, err := cache.New(c, dir)
		require.NoError(t, err)
		var mu sync.Mutex
		var events []string
		ch.AddListener(func(e cache.Event) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, e.Type.String()+" "+e.Path)
		})
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		require.NoError(t, ch.Start(cctx))
		require.NoError(t, ch.AwaitInitialized(ctx))
		told := func() []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), events...)
		}
		require.Equal(t, []string{"created " + dir, "created " + dir + "/one", "initialized "}, told())

		require.NoError(t, observer.Delete(ctx, dir+"/one", -1))
		awaitReaped(t, observer, root)
		assert.Eventually(t, func() bool { return len(told()) >= 5 }, 10*time.Second, 10*time.Millisecond, "told: %v", told())
		assert.Equal(t, []string{"deleted " + dir + "/one", "deleted " + dir}, told()[3:], "the child, then the directory")
		_, there := ch.Get(dir)
		assert.False(t, there, "the reaped directory is gone from the cache")

		_, err = observer.Create(ctx, dir+"/two", []byte("2"), framework.Persistent, framework.WithParents())
		require.NoError(t, err)
		assert.Eventually(t, func() bool { return len(told()) >= 7 }, 10*time.Second, 10*time.Millisecond, "told: %v", told())
		assert.Equal(t, []string{"created " + dir, "created " + dir + "/two"}, told()[5:], "the directory, then the child")
		e, there := ch.Get(dir + "/two")
		assert.True(t, there)
		assert.Equal(t, []byte("2"), e.Data)
		assert.Equal(t, 2, ch.Len())
		require.NoError(t, ch.Close(ctx))
		require.NoError(t, observer.Delete(ctx, dir+"/two", -1))
	})
}
