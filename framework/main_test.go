package framework_test

import (
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// Helpers shared by the integration tests of every package.
var (
	connect     = zktest.Connect
	testContext = zktest.Context
)

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
