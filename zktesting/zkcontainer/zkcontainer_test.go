package zkcontainer_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/zktesting"
	"github.com/zkrecipes/zkrecipes/zktesting/zkcontainer"
)

// containers skips a test unless ZK_BACKEND=container says a Docker engine
// and ZK_IMAGE are there (make test-container). Under `make test` there is
// no Docker engine, and these tests skip.
func containers(t *testing.T) {
	t.Helper()
	if os.Getenv("ZK_BACKEND") != "container" {
		t.Skip("runs a container: set ZK_BACKEND=container (make test-container)")
	}
}

func TestNew_ServesOnLoopbackAndRestartKeepsSessions(t *testing.T) {
	containers(t)
	s := zkcontainer.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	stats, err := zktesting.Mntr(ctx, s.Addr())
	require.NoError(t, err)
	assert.Equal(t, "standalone", stats["zk_server_state"])

	states := make(chan zk.State, 100)
	conn, _, err := zk.Connect([]string{s.Addr()}, 20*time.Second, zk.WithLogInfo(false),
		zk.WithEventCallback(func(ev zk.Event) {
			if ev.Type == zk.EventSession {
				select {
				case states <- ev.State:
				default:
				}
			}
		}))
	require.NoError(t, err)
	defer conn.Close()
	await := func(want zk.State) {
		t.Helper()
		for {
			select {
			case got := <-states:
				if got == want {
					return
				}
			case <-ctx.Done():
				t.Fatalf("no %v", want)
			}
		}
	}
	await(zk.StateHasSession)
	_, err = conn.Create("/eph", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	id := conn.SessionID()

	require.NoError(t, s.Restart(ctx))
	await(zk.StateHasSession)
	assert.Equal(t, id, conn.SessionID(), "the session survives a restart")
	ok, _, err := conn.Exists("/eph")
	require.NoError(t, err)
	assert.True(t, ok)

	require.NoError(t, s.Close())
	assert.ErrorIs(t, s.Restart(ctx), zkcontainer.ErrClosed)
}
