package zktesting_test

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/zktesting"
)

// dialThrough opens a session on addr through faults and records its states.
func dialThrough(t *testing.T, addr string, faults *zktesting.Faults) (*zk.Conn, <-chan zk.State) {
	t.Helper()
	states := make(chan zk.State, 100)
	record := func(ev zk.Event) {
		if ev.Type == zk.EventSession {
			select {
			case states <- ev.State:
			default:
			}
		}
	}
	conn, _, err := zk.Connect([]string{addr}, 2*time.Second, zk.WithDialer(faults.Dial),
		zk.WithEventCallback(record), zk.WithLogInfo(false), zk.WithLogger(quiet{}))
	require.NoError(t, err)
	t.Cleanup(conn.Close)
	awaitStateOn(t, states, zk.StateHasSession)
	return conn, states
}

func awaitStateOn(t *testing.T, states <-chan zk.State, want zk.State) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case s := <-states:
			if s == want {
				return
			}
		case <-timeout:
			t.Fatalf("no %v within 30s", want)
		}
	}
}

func TestFaults_ExpireSessionEndsTheSessionAndItsNodes(t *testing.T) {
	t.Parallel()
	integration(t)
	s := zktesting.NewServer(t)
	faults := zktesting.NewFaults()
	conn, states := dialThrough(t, s.Addr(), faults)
	_, err := conn.Create("/eph", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	id := conn.SessionID()

	require.NoError(t, faults.ExpireSession(testContext(t), s.Addr(), id))
	awaitStateOn(t, states, zk.StateExpired)
	awaitStateOn(t, states, zk.StateHasSession)
	assert.NotEqual(t, id, conn.SessionID())
	ok, _, err := conn.Exists("/eph")
	require.NoError(t, err)
	assert.False(t, ok, "the expired session's ephemeral node is gone")
}

func TestFaults_CutKeepsTheSession(t *testing.T) {
	t.Parallel()
	integration(t)
	s := zktesting.NewServer(t)
	faults := zktesting.NewFaults()
	conn, states := dialThrough(t, s.Addr(), faults)
	id := conn.SessionID()

	faults.Cut()
	awaitStateOn(t, states, zk.StateDisconnected)
	awaitStateOn(t, states, zk.StateHasSession)
	assert.Equal(t, id, conn.SessionID())
}

func TestNewServer_IsStoppedWhenTheTestEnds(t *testing.T) {
	integration(t)
	var s *zktesting.Server
	t.Run("inner", func(t *testing.T) {
		s = zktesting.NewServer(t)
		assert.Positive(t, s.PID())
	})
	assert.Zero(t, s.PID(), "stopped by the inner test's clean-up")
	assert.NoDirExists(t, s.Dir())
}
