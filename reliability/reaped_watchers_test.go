package reliability_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/discovery"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

// presenceCase is a recipe that follows a directory while it runs: start
// starts it on path and returns what it sees (true: something is there);
// put makes something there and returns how to take it away.
type presenceCase struct {
	name  string
	start func(t *testing.T, ctx context.Context, c *framework.Client, path string) (seen func() bool)
	put   func(t *testing.T, ctx context.Context, c *framework.Client, path string) (take func())
}

// A recipe that follows a directory while the server reaps it (its last
// node gone) sees it empty, and sees what is made there once the directory
// is made again: with a recursive watch and with one-shot watches.
func TestReaped_RecipesThatFollowADirectorySeeItReapedAndMadeAgain(t *testing.T) {
	cases := []presenceCase{
		{"leader.Observer.Watch", func(t *testing.T, ctx context.Context, c *framework.Client, path string) func() bool {
			o, err := leader.NewObserver(c, path)
			require.NoError(t, err)
			seen, err := o.Watch(ctx)
			require.NoError(t, err)
			var leads atomic.Bool
			go func() { // ends when ctx ends, which closes seen
				for o := range seen {
					leads.Store(o.HasLeader())
				}
			}()
			return leads.Load
		}, func(t *testing.T, ctx context.Context, c *framework.Client, path string) func() {
			l, err := leader.NewLatch(c, path)
			require.NoError(t, err)
			require.NoError(t, l.Start(ctx))
			_, err = l.Await(ctx)
			require.NoError(t, err)
			return func() { require.NoError(t, l.Close(ctx)) }
		}},
		{"discovery.ServiceCache", func(t *testing.T, ctx context.Context, c *framework.Client, path string) func() bool {
			d, err := discovery.New[string](c, path)
			require.NoError(t, err)
			sc, err := d.Cache("svc")
			require.NoError(t, err)
			require.NoError(t, sc.Start(ctx))
			require.NoError(t, sc.AwaitInitialized(ctx))
			return func() bool { return len(sc.Instances()) > 0 }
		}, func(t *testing.T, ctx context.Context, c *framework.Client, path string) func() {
			d, err := discovery.New[string](c, path)
			require.NoError(t, err)
			r, err := d.Register(ctx, discovery.Instance[string]{Name: "svc", ID: "one"})
			require.NoError(t, err)
			return func() { require.NoError(t, r.Close(ctx)) }
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			zktest.ServerKinds(t, func(t *testing.T, proxy *zktest.Proxy) {
				c := zktest.Connect(t, proxy.Addr())
				other := zktest.Connect(t, zktest.Servers(t))
				ctx := zktest.Context(t)
				root := zktest.UniquePath(t)
				path := root + "/a/recipe"
				take := tc.put(t, ctx, other, path)
				rctx, cancel := context.WithCancel(ctx)
				defer cancel()
				seen := tc.start(t, rctx, c, path)
				assert.Eventually(t, seen, 10*time.Second, 10*time.Millisecond, "seen there at first")
				take()
				awaitReaped(t, other, root)
				assert.Eventually(t, func() bool { return !seen() }, 10*time.Second, 10*time.Millisecond, "seen gone")
				take = tc.put(t, ctx, other, path)
				assert.Eventually(t, seen, 10*time.Second, 10*time.Millisecond, "seen there again")
				take()
			})
		})
	}
}

// A simple queue's Take that waits while the server reaps the queue's
// directory makes it again, and takes the item offered then.
func TestReaped_SimpleTakeWaitingAcrossTheReapTakesTheNextItem(t *testing.T) {
	zktest.ServerKinds(t, func(t *testing.T, proxy *zktest.Proxy) {
		c := zktest.Connect(t, proxy.Addr())
		observer := zktest.Connect(t, zktest.Servers(t))
		ctx := zktest.Context(t)
		root := zktest.UniquePath(t)
		s, err := queue.NewSimple(c, root+"/a/queue")
		require.NoError(t, err)
		require.NoError(t, s.Offer(ctx, []byte("one")))
		_, err = s.Take(ctx)
		require.NoError(t, err)

		taken := make(chan []byte, 1)
		go func() { // ends when Take returns: an item, or ctx's end
			data, err := s.Take(ctx)
			assert.NoError(t, err)
			taken <- data
		}()
		// The waiting Take makes the directory again as soon as the server
		// has reaped it: a new creation tells the reap.
		_, before, err := observer.Exists(ctx, root+"/a/queue")
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			there, now, err := observer.Exists(ctx, root+"/a/queue")
			return err == nil && there && now.Czxid != before.Czxid
		}, 20*time.Second, 20*time.Millisecond, "the directory was reaped and made again")
		other, err := queue.NewSimple(observer, root+"/a/queue")
		require.NoError(t, err)
		require.NoError(t, other.Offer(ctx, []byte("two")))
		select {
		case data := <-taken:
			assert.Equal(t, []byte("two"), data)
		case <-time.After(10 * time.Second):
			t.Fatal("the waiting Take took nothing")
		}
	})
}
