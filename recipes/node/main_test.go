package node_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/node"
)

func TestMain(m *testing.M) { zktest.Main(m) }

var (
	connect     = zktest.Connect
	testContext = zktest.Context
)

// events records a node's events.
type events chan node.Event

func (e events) listener() node.Listener { return func(ev node.Event) { e <- ev } }

func (e events) next(t *testing.T, want node.EventType) node.Event {
	t.Helper()
	for {
		select {
		case ev := <-e:
			if ev.Type == want {
				return ev
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("no %s event", want)
			return node.Event{}
		}
	}
}

// started makes and starts a node, closed at the end of the test.
func started(t *testing.T, c *framework.Client, path string, mode framework.CreateMode, data string, opts ...node.Option) (*node.Node, events) {
	t.Helper()
	n, err := node.New(c, path, mode, []byte(data), opts...)
	require.NoError(t, err)
	evs := make(events, 64)
	n.AddListener(evs.listener())
	require.NoError(t, n.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = n.Close(ctx)
	})
	require.NoError(t, n.AwaitCreated(testContext(t)))
	return n, evs
}
