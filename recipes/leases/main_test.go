package leases_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
)

func TestMain(m *testing.M) { zktest.Main(m) }

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
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newLease creates a lease node under dir as a semaphore would, and wraps
// it.
func newLease(t testing.TB, c *framework.Client, dir string, opts ...leases.Option) *leases.Lease {
	t.Helper()
	node, err := c.CreateProtected(testContext(t), zkpath.Join(dir, zkpath.LeaseName), []byte("d"),
		framework.EphemeralSequential, framework.WithParents())
	require.NoError(t, err)
	l, err := leases.New(c, node, []byte("d"), opts...)
	require.NoError(t, err)
	return l
}

// exists reports whether the node at path exists. It uses no require, so
// Eventually's goroutine may call it.
func exists(t testing.TB, c *framework.Client, path string) bool {
	t.Helper()
	ok, _, err := c.Exists(testContext(t), path)
	assert.NoError(t, err)
	return ok
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
