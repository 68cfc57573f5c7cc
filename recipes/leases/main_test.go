package leases_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// Helpers shared by the integration tests of every package.
var (
	connect     = zktest.Connect
	testContext = zktest.Context
	waitClosed  = zktest.WaitClosed
)

// newLease creates a lease node under dir as a semaphore would, and wraps
// it.
func newLease(t testing.TB, c *framework.Client, dir string, opts ...leases.Option) *leases.Lease {
	t.Helper()
	node, err := c.CreateProtected(testContext(t), zkpath.Join(dir, zkpath.LeaseName), []byte("d"),
		framework.EphemeralSequential, framework.WithParents())
	require.NoError(t, err)
	l, err := leases.Issue(c, node, []byte("d"), opts...)
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
