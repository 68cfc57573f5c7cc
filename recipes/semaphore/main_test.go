package semaphore_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// leaseNode is the name of a lease node in Curator's format.
const leaseNode = `^_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-lease-\d{10}$`

// connect returns a connected client of servers, closed at the end of the
// test.
func connect(t testing.TB, servers string, opts ...framework.Option) *framework.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := framework.Connect(ctx, []string{servers}, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	t.Cleanup(cancel)
	return ctx
}

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

// children returns the names under path (none if it does not exist). It
// uses no require, so Eventually's goroutine may call it.
func children(t testing.TB, c *framework.Client, path string) []string {
	t.Helper()
	names, _, err := c.Children(testContext(t), path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	assert.NoError(t, err)
	return names
}

// nodeCount counts the leases and guard nodes under a semaphore's path.
func nodeCount(t testing.TB, c *framework.Client, path string) int {
	t.Helper()
	return len(children(t, c, path+"/leases")) + len(children(t, c, path+"/locks"))
}

// waitClosed fails the test unless ch closes within timeout.
func waitClosed(t testing.TB, ch <-chan struct{}, timeout time.Duration, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(timeout):
		t.Fatalf("%s: not within %v", what, timeout)
	}
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
