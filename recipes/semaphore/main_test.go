package semaphore_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// Helpers shared by the integration tests of every package.
var (
	connect     = zktest.Connect
	testContext = zktest.Context
	children    = zktest.Children
	waitClosed  = zktest.WaitClosed
)

// heldTimeout bounds a timed acquire that is to find the lock held and say
// ErrNotAcquired: it must outlast the answers that show the lock held. A
// loaded machine answered later than the 100 to 300 ms these acquires had,
// and they rightly said ErrUnreachable (the deadline ran out before the
// server answered). The lock stays held throughout, so the acquire waits
// it out whatever it is.
const heldTimeout = time.Second

// leaseNode is the name of a lease node in Curator's format.
const leaseNode = `^_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-lease-\d{10}$`

func newSemaphore(t testing.TB, c *framework.Client, path string, max int, opts ...semaphore.Option) *semaphore.Semaphore {
	t.Helper()
	s, err := semaphore.New(c, path, max, opts...)
	require.NoError(t, err)
	return s
}

func newCount(t testing.TB, c *framework.Client, path string, seed int32) *sharedcount.SharedCount {
	t.Helper()
	sc, err := sharedcount.New(c, path, seed)
	require.NoError(t, err)
	return sc
}

// nodeCount counts the leases and guard nodes under a semaphore's path.
func nodeCount(t testing.TB, c *framework.Client, path string) int {
	t.Helper()
	return len(children(t, c, path+"/leases")) + len(children(t, c, path+"/locks"))
}

// result is an acquire's outcome, passed back from a goroutine.
type result[T any] struct {
	v   T
	err error
}

// raise sets peak to v if v is higher.
func raise(peak *atomic.Int64, v int64) {
	for {
		old := peak.Load()
		if v <= old || peak.CompareAndSwap(old, v) {
			return
		}
	}
}

// keepDirectories keeps a semaphore's container directories from being
// reaped while a test counts requests (the test server reaps empty
// containers every second): a node of another name in its locks, and one
// lease held by a client of its own, not counted.
func keepDirectories(t *testing.T, path string, max int) {
	t.Helper()
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	_, err := c.Create(ctx, path+"/locks/keep", nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	l, err := newSemaphore(t, c, path, max).Acquire(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Release(context.Background()) })
}
