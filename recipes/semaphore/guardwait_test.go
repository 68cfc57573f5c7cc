package semaphore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
)

// An acquirer queued behind another on the semaphore's locks directory,
// on one-shot watches (a server before ZooKeeper 3.6), watches only the
// node in front of it, not its own too: the count, not that lock, keeps
// the leases within the maximum. It costs one request and one
// notification fewer than a mutex waiter would.
func TestAcquire_AWaiterForTheLocksWatchesOneNode(t *testing.T) {
	servers := zktest.Servers(t)
	path := zktest.UniquePath(t)
	ctx := testContext(t)
	observer := connect(t, servers)
	held, err := newSemaphore(t, connect(t, servers), path, 1).Acquire(ctx)
	require.NoError(t, err)

	// The first acquirer takes the locks and waits there for room.
	first := acquireInBackground(newSemaphore(t, connect(t, servers), path, 1))
	require.Eventually(t, func() bool { return len(children(t, observer, path+"/leases")) == 2 }, 10*time.Second, 5*time.Millisecond)
	// The second queues behind it.
	proxy := zktest.NewProxy(t, servers)
	proxy.MakeOld()
	second := acquireInBackground(newSemaphore(t, connect(t, proxy.Addr()), path, 1))
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpGetData) >= 1 }, 10*time.Second, 5*time.Millisecond, "the second waits")

	require.NoError(t, held.Release(ctx))
	l := <-first
	require.NoError(t, l.err)
	require.NoError(t, l.v.Release(ctx))
	l = <-second
	require.NoError(t, l.err)
	require.NoError(t, l.v.Release(ctx))
	assert.Equal(t, int64(1), proxy.Requests(zktest.OpGetData), "watches the second set")
	assert.Equal(t, 0, nodeCount(t, observer, path))
}

// acquireInBackground acquires a lease of s on a goroutine of its own.
func acquireInBackground(s interface {
	Acquire(context.Context) (*leases.Lease, error)
}) <-chan result[*leases.Lease] {
	done := make(chan result[*leases.Lease], 1)
	go func() {
		l, err := s.Acquire(context.Background())
		done <- result[*leases.Lease]{l, err}
	}()
	return done
}
