package mutex_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// A waiter on one-shot watches watches the node in front of it and its
// own node; with WithOrderOnly, only the node in front: one request and
// one notification fewer per contended acquisition. Either way it holds
// once the holder releases.
func TestOrderOnly_AWaiterDoesNotWatchItsOwnNode(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    []mutex.Option
		watches int64
	}{
		{"default", nil, 2},
		{"order only", []mutex.Option{mutex.WithOrderOnly()}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			servers := zktest.Servers(t)
			path := zktest.UniquePath(t)
			observer := connect(t, servers)
			count := func() int { return len(children(t, observer, path)) }
			holder, err := newMutex(t, connect(t, servers), path).Acquire(testContext(t))
			require.NoError(t, err)
			proxy := zktest.NewProxy(t, servers)
			makeOld(proxy)
			waiter := queue(t, newMutex(t, connect(t, proxy.Addr()), path, tc.opts...), count, 2)
			require.Eventually(t, func() bool { return waiting(proxy, true, tc.watches) }, 10*time.Second, 5*time.Millisecond, "the waiter waits")

			require.NoError(t, holder.Release(testContext(t)))
			waiter.held(t, "the waiter")
			assert.Equal(t, tc.watches, proxy.Requests(zktest.OpGetData), "watches the waiter set")
			close(waiter.release)
			require.Eventually(t, func() bool { return count() == 0 }, 10*time.Second, 10*time.Millisecond)
		})
	}
}
