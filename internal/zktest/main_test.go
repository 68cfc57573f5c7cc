package zktest

import (
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { Main(m) }

// session is a go-zookeeper connection with its session states recorded.
type session struct {
	*zk.Conn
	states chan zk.State // every session event's state, in order
}

// connect opens a session on servers (a comma-separated connect string)
// and waits until it has one; the connection closes when the test ends.
func connect(t *testing.T, servers string, timeout time.Duration) *session {
	t.Helper()
	s := &session{states: make(chan zk.State, 1000)}
	record := func(ev zk.Event) {
		if ev.Type == zk.EventSession {
			select {
			case s.states <- ev.State:
			default: // a test that lets 1000 states pile up has failed anyway
			}
		}
	}
	conn, _, err := zk.Connect(splitServers(servers), timeout,
		zk.WithEventCallback(record), zk.WithLogInfo(false), zk.WithLogger(quietLogger{}))
	require.NoError(t, err)
	s.Conn = conn
	t.Cleanup(conn.Close)
	s.await(t, zk.StateHasSession, 30*time.Second)
	return s
}

// await waits until the session reaches state, skipping other states.
func (s *session) await(t *testing.T, state zk.State, within time.Duration) {
	t.Helper()
	timer := time.NewTimer(within)
	defer timer.Stop()
	for {
		select {
		case got := <-s.states:
			if got == state {
				return
			}
		case <-timer.C:
			t.Fatalf("no %v within %v", state, within)
		}
	}
}

// ensurePath creates path and its missing parents as persistent nodes.
func ensurePath(t *testing.T, conn *zk.Conn, path string) {
	t.Helper()
	for i := 1; i <= len(path); i++ {
		if i == len(path) || path[i] == '/' {
			_, err := conn.Create(path[:i], nil, 0, zk.WorldACL(zk.PermAll))
			if err != nil && !errors.Is(err, zk.ErrNodeExists) {
				require.NoError(t, err, "create %s", path[:i])
			}
		}
	}
}

// splitServers splits a connect string.
func splitServers(servers string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(servers); i++ {
		if i == len(servers) || servers[i] == ',' {
			out = append(out, servers[start:i])
			start = i + 1
		}
	}
	return out
}

// quietLogger drops go-zookeeper's log lines.
type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}
