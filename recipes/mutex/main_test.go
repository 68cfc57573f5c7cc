package mutex_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
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
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func newMutex(t testing.TB, c *framework.Client, path string, opts ...mutex.Option) *mutex.Mutex {
	t.Helper()
	m, err := mutex.New(c, path, opts...)
	require.NoError(t, err)
	return m
}

// children returns the names under path (none if it does not exist).
func children(t testing.TB, c *framework.Client, path string) []string {
	t.Helper()
	names, _, err := c.Children(testContext(t), path)
	if err != nil {
		require.ErrorContains(t, err, "node does not exist")
		return nil
	}
	return names
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
