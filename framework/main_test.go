package framework_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// connect returns a connected client of servers, closed at the end of the
// test.
func connect(t *testing.T, servers string, opts ...framework.Option) *framework.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := framework.Connect(ctx, []string{servers}, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// testContext is a context for one test's server calls.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// stateRecorder collects every state change a listener receives.
type stateRecorder struct {
	changes chan framework.StateChange
}

func recordStates(c *framework.Client) *stateRecorder {
	r := &stateRecorder{changes: make(chan framework.StateChange, 1000)}
	c.AddListener(func(s framework.StateChange) { r.changes <- s })
	return r
}

// next returns the next change, failing the test after timeout.
func (r *stateRecorder) next(t *testing.T, timeout time.Duration) framework.StateChange {
	t.Helper()
	select {
	case s := <-r.changes:
		return s
	case <-time.After(timeout):
		t.Fatalf("no state change within %v", timeout)
		return framework.StateChange{}
	}
}
