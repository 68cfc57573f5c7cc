package mutex_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// Helpers shared by the integration tests of every package.
var (
	connect     = zktest.Connect
	testContext = zktest.Context
	children    = zktest.Children
	waitClosed  = zktest.WaitClosed
)

// participantNodes returns the participants' nodes, in order.
func participantNodes(ps []mutex.Participant) []string {
	nodes := make([]string, len(ps))
	for i, p := range ps {
		nodes[i] = p.Node
	}
	return nodes
}

func newMutex(t testing.TB, c *framework.Client, path string, opts ...mutex.Option) *mutex.Mutex {
	t.Helper()
	m, err := mutex.New(c, path, opts...)
	require.NoError(t, err)
	return m
}
