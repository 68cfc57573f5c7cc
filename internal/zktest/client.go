package zktest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
)

// clientTimeout bounds the connection of a test's client and each test's
// context.
const (
	clientTimeout  = 30 * time.Second
	contextTimeout = 2 * time.Minute
)

// Connect returns a framework client of servers, connected, and closed when
// the test ends.
func Connect(t testing.TB, servers string, opts ...framework.Option) *framework.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	c, err := framework.Connect(ctx, []string{servers}, opts...)
	require.NoError(t, err, "zktest: connect to %s", servers)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Context returns a context for a test's server calls, ended when the test
// ends or after two minutes.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), contextTimeout)
	t.Cleanup(cancel)
	return ctx
}

// Children returns the names under path, none if it does not exist. It
// uses no require, so Eventually's goroutine may call it.
func Children(t testing.TB, c *framework.Client, path string) []string {
	t.Helper()
	names, _, err := c.Children(Context(t), path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	assert.NoError(t, err)
	return names
}

// WaitClosed fails the test unless ch is closed within timeout.
func WaitClosed(t testing.TB, ch <-chan struct{}, timeout time.Duration, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(timeout):
		t.Fatalf("%s: not closed within %v", what, timeout)
	}
}

// Counted returns the address of a proxy to the test binary's shared
// server, and a function that counts the requests sent through it (see
// Proxy.Sent). A test that counts what its own client costs connects
// through it.
func Counted(t testing.TB) (addr string, requests func() int64) {
	t.Helper()
	p := NewProxy(t, Servers(t))
	return p.Addr(), p.Sent
}
