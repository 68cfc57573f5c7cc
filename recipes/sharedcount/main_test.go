package sharedcount_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// Helpers shared by the integration tests of every package.
var (
	connect     = zktest.Connect
	testContext = zktest.Context
)

func newCount(t testing.TB, c *framework.Client, path string, seed int32, opts ...sharedcount.Option) *sharedcount.SharedCount {
	t.Helper()
	sc, err := sharedcount.New(c, path, seed, opts...)
	require.NoError(t, err)
	return sc
}

// next returns the next value from a watch, failing the test after 10 s.
func next(t testing.TB, ch <-chan sharedcount.Value) sharedcount.Value {
	t.Helper()
	select {
	case v, ok := <-ch:
		require.True(t, ok, "the watch ended")
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("no value within 10 s")
		return sharedcount.Value{}
	}
}
