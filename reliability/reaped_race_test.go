package reliability_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// A write that finds its directory missing, then there (an empty
// container that had children, which the server reaps at any moment), then
// gone again when its create arrives, makes the directory once more and
// writes, rather than failing with "node does not exist".
func TestReaped_DirectoryReapedAfterItWasFoundIsMadeAgain(t *testing.T) {
	for _, tc := range []struct {
		name string
		sub  string // the directory, under the recipe's path
		call func(t *testing.T, c *framework.Client, path string) func(ctx context.Context) error
	}{
		{"Simple.Offer", "", func(t *testing.T, c *framework.Client, path string) func(ctx context.Context) error {
			s, err := queue.NewSimple(c, path)
			require.NoError(t, err)
			return func(ctx context.Context) error { return s.Offer(ctx, []byte("x")) }
		}},
		{"Semaphore.Acquire", "/leases", func(t *testing.T, c *framework.Client, path string) func(ctx context.Context) error {
			s, err := semaphore.New(c, path, 1)
			require.NoError(t, err)
			return func(ctx context.Context) error {
				l, err := s.Acquire(ctx)
				if err != nil {
					return err
				}
				return l.Release(ctx)
			}
		}},
		{"atomicvalue.Long.Increment", "", func(t *testing.T, c *framework.Client, path string) func(ctx context.Context) error {
			l, err := atomicvalue.NewLong(c, path+"/value")
			require.NoError(t, err)
			return func(ctx context.Context) error { return succeeded(l.Increment(ctx)) }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			servers := zktest.Servers(t)
			proxy := zktest.NewProxy(t, servers)
			c := zktest.Connect(t, proxy.Addr())
			observer := zktest.Connect(t, servers)
			ctx := zktest.Context(t)
			root := zktest.UniquePath(t)
			path := root + "/recipe"
			require.NoError(t, observer.EnsurePath(ctx, root))
			reapBetween(t, proxy, observer, path+tc.sub, zktest.OpMulti, zktest.OpExists, tc.call(t, c, path))
			assert.NotEmpty(t, tree(t, observer, path+tc.sub), "the directory is there again")
		})
	}
}

// reapBetween runs call, whose request of type first finds dir missing;
// dir is then made by someone else, found there by call's request of
// type found, and deleted, as the server reaps an empty container, before
// call's next request; call must succeed all the same.
func reapBetween(t *testing.T, proxy *zktest.Proxy, observer *framework.Client, dir string, first, found int32, call func(ctx context.Context) error) {
	t.Helper()
	ctx := zktest.Context(t)
	proxy.HoldRepliesFrom(first)
	done := make(chan error, 1)
	go func() { done <- call(ctx) }() // ends when the call returns
	require.Eventually(t, func() bool { return proxy.Answered(first) >= 1 }, 10*time.Second, 5*time.Millisecond)
	_, err := observer.Create(ctx, dir, nil, framework.Container)
	require.NoError(t, err)
	before := proxy.Answered(found)
	proxy.ReleaseRepliesHoldingFrom(found)
	require.Eventually(t, func() bool { return proxy.Answered(found) > before }, 10*time.Second, 5*time.Millisecond)
	require.NoError(t, observer.Delete(ctx, dir, -1))
	proxy.ReleaseReplies()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not return")
	}
}

// A call whose ctx ends while it makes its reaped directory again fails
// with an error that wraps ctx's, and leaves nothing behind.
func TestReaped_CtxThatEndsDuringTheRepairFailsTheCallAndLeavesNothing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		first  int32 // the request whose answer says the directory is missing
		repair int32 // the first request of the repair
		// last is the last request the abandoned repair sends, and how
		// many of its type will have been answered then.
		last  int32
		lastN int64
		// closes: the call makes no node its session's end would delete,
		// so the client's Close, which waits for a request the call left
		// running, settles the test without hiding a node left behind.
		closes bool
		call   func(t *testing.T, c *framework.Client, dir string) func(ctx context.Context) error
	}{
		{"Simple.Offer", zktest.OpMulti, zktest.OpExists, zktest.OpExists, 1, true, func(t *testing.T, c *framework.Client, dir string) func(ctx context.Context) error {
			s, err := queue.NewSimple(c, dir)
			require.NoError(t, err)
			return func(ctx context.Context) error { return s.Offer(ctx, []byte("x")) }
		}},
		{"mutex.Acquire", zktest.OpCreate, zktest.OpCreateContainer, zktest.OpCreate, 2, false, func(t *testing.T, c *framework.Client, dir string) func(ctx context.Context) error {
			m, err := mutex.New(c, dir)
			require.NoError(t, err)
			return func(ctx context.Context) error { _, err := m.Acquire(ctx); return err }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			servers := zktest.Servers(t)
			proxy := zktest.NewProxy(t, servers)
			c := zktest.Connect(t, proxy.Addr())
			observer := zktest.Connect(t, servers)
			root := zktest.UniquePath(t)
			call := tc.call(t, c, root+"/dir")
			ctx, cancel := context.WithCancel(zktest.Context(t))
			// The answer that the directory is missing waits, then the
			// answer to the repair's first request, while ctx ends.
			proxy.HoldRepliesFrom(tc.first)
			done := make(chan error, 1)
			go func() { done <- call(ctx) }() // ends when the call returns
			require.Eventually(t, func() bool { return proxy.Answered(tc.first) >= 1 }, 10*time.Second, 5*time.Millisecond)
			proxy.ReleaseRepliesHoldingFrom(tc.repair)
			require.Eventually(t, func() bool { return proxy.Answered(tc.repair) >= 1 }, 10*time.Second, 5*time.Millisecond)
			cancel()
			select {
			case err := <-done:
				require.ErrorIs(t, err, context.Canceled)
			case <-time.After(10 * time.Second):
				t.Fatal("the call did not return when its ctx ended")
			}
			proxy.ReleaseReplies()
			require.Eventually(t, func() bool { return proxy.Answered(tc.last) >= tc.lastN }, 10*time.Second, 5*time.Millisecond)
			if tc.closes {
				require.NoError(t, c.Close())
			}
			// What was made and deleted again leaves containers, which the
			// server reaps.
			assert.Eventually(t, func() bool { left, err := nodesUnder(observer, root); return err == nil && len(left) == 0 },
				10*time.Second, 20*time.Millisecond, "left behind")
			left, err := nodesUnder(observer, root)
			assert.NoError(t, err, "the last look")
			assert.Empty(t, left, "the last look")
		})
	}
}

// nodesUnder lists path and every node under it, depth first (the
// server's own /zookeeper left out); nothing when path does not exist. A
// client cannot tell a container from a
// persistent node (the server shows either's ephemeral owner as 0). It
// fails nothing itself: Eventually's goroutine calls it, and a require
// there would leave Eventually waiting out its time on a goroutine gone.
func nodesUnder(c *framework.Client, path string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	children, _, err := c.Children(ctx, path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := []string{path}
	for _, name := range children {
		if path == "/" && name == "zookeeper" {
			continue
		}
		below, err := nodesUnder(c, zkpath.Join(path, name))
		if err != nil {
			return nil, err
		}
		out = append(out, below...)
	}
	return out, nil
}
