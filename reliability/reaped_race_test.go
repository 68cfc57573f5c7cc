package reliability_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

// A simple queue's offer that finds its directory missing, then there (an
// empty container that had items, which the server reaps at any moment),
// then gone again when its create arrives, makes the directory once more
// and adds its item, rather than failing with "node does not exist".
func TestReaped_SimpleOfferWhoseDirectoryIsReapedAfterItWasFoundAddsItsItem(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := zktest.Connect(t, proxy.Addr())
	observer := zktest.Connect(t, servers)
	ctx := zktest.Context(t)
	root := zktest.UniquePath(t)
	dir := root + "/queue"
	require.NoError(t, observer.EnsurePath(ctx, root))
	s, err := queue.NewSimple(c, dir)
	require.NoError(t, err)

	reapBetween(t, proxy, observer, dir, zktest.OpMulti, zktest.OpExists, func(ctx context.Context) error {
		return s.Offer(ctx, []byte("x"))
	})
	took, err := queue.NewSimple(observer, dir)
	require.NoError(t, err)
	data, err := took.Poll(ctx, 0)
	require.NoError(t, err)
	assert.Equal(t, []byte("x"), data)
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
