package barrier_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/barrier"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// Helpers shared by the integration tests of every package.
var (
	connect     = zktest.Connect
	testContext = zktest.Context
)

func newBarrier(t testing.TB, c *framework.Client, path string) *barrier.Barrier {
	t.Helper()
	b, err := barrier.New(c, path)
	require.NoError(t, err)
	return b
}

func newDouble(t testing.TB, c *framework.Client, path string, members int) *barrier.Double {
	t.Helper()
	d, err := barrier.NewDouble(c, path, members)
	require.NoError(t, err)
	return d
}

// entered is what an Enter returned.
type entered struct {
	m   *barrier.Member
	err error
}

// enterAsync enters d on a goroutine of its own and delivers what Enter
// returned.
func enterAsync(ctx context.Context, d *barrier.Double) <-chan entered {
	ch := make(chan entered, 1)
	go func() { // ends when Enter returns
		m, err := d.Enter(ctx)
		ch <- entered{m, err}
	}()
	return ch
}

// leaveAsync leaves with m on a goroutine of its own and delivers what
// Leave returned.
func leaveAsync(ctx context.Context, m *barrier.Member) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- m.Leave(ctx) }() // ends when Leave returns
	return ch
}

// receive returns what ch delivers, failing the test after 20 s.
func receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: nothing within 20 s", what)
		var zero T
		return zero
	}
}

// memberNodes lists the member nodes under path in name order, ready left
// out.
func memberNodes(t testing.TB, c *framework.Client, path string) []string {
	t.Helper()
	names := slices.DeleteFunc(zktest.Children(t, c, path), func(n string) bool { return n == "ready" })
	slices.Sort(names)
	return names
}

// opExists is the request of framework.Client.ExistsW.
const opExists int32 = 3
