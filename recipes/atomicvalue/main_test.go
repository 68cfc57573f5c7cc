package atomicvalue_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// Helpers shared by the integration tests of every package.
var (
	connect     = zktest.Connect
	testContext = zktest.Context
)

func newLong(t testing.TB, c *framework.Client, path string, opts ...atomicvalue.Option) *atomicvalue.Long {
	t.Helper()
	l, err := atomicvalue.NewLong(c, path, opts...)
	require.NoError(t, err)
	return l
}

func newInt(t testing.TB, c *framework.Client, path string, opts ...atomicvalue.Option) *atomicvalue.Int {
	t.Helper()
	n, err := atomicvalue.NewInt(c, path, opts...)
	require.NoError(t, err)
	return n
}

func newBytes(t testing.TB, c *framework.Client, path string, opts ...atomicvalue.Option) *atomicvalue.Bytes {
	t.Helper()
	b, err := atomicvalue.NewBytes(c, path, opts...)
	require.NoError(t, err)
	return b
}

// nodeData reads the raw data and version of the node at path.
func nodeData(t testing.TB, c *framework.Client, path string) ([]byte, int32) {
	t.Helper()
	data, stat, err := c.Get(testContext(t), path)
	require.NoError(t, err)
	return data, stat.Version
}
