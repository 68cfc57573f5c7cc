package leader_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// newObserver is NewObserver that must succeed.
func newObserver(t testing.TB, c *framework.Client, path string, opts ...leader.Option) *leader.Observer {
	t.Helper()
	o, err := leader.NewObserver(c, path, opts...)
	require.NoError(t, err)
	return o
}
