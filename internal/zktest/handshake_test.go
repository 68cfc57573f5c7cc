package zktest

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A go-zookeeper client dialing through BoundedHandshake gives up a
// handshake the server leaves unanswered, as ZooKeeper 3.8.0 leaves a
// connection that arrives while it starts, and reconnects in the same
// session; alone it waits 20/3 of the session timeout for the answer.
func TestBoundedHandshake_AnUnansweredHandshakeIsGivenUp(t *testing.T) {
	t.Parallel()
	const timeout = 6 * time.Second
	p := NewProxy(t, sharedAddr(t))
	states := make(chan zk.State, 100)
	conn, _, err := zk.Connect([]string{p.Addr()}, timeout, zk.WithLogInfo(false), zk.WithLogger(quietLogger{}),
		zk.WithDialer(BoundedHandshake(timeout/3)),
		zk.WithEventCallback(func(ev zk.Event) {
			if ev.Type == zk.EventSession {
				states <- ev.State
			}
		}))
	require.NoError(t, err)
	t.Cleanup(conn.Close)
	s := &session{Conn: conn, states: states}
	s.await(t, zk.StateHasSession, 30*time.Second)
	id := conn.SessionID()

	p.StallNextConnection()
	p.Cut()
	s.await(t, zk.StateDisconnected, 5*time.Second)
	s.await(t, zk.StateHasSession, timeout)
	assert.Equal(t, id, conn.SessionID(), "the same session")
	assert.Equal(t, int64(1), p.Stalled(), "the reconnect met the unanswered connection")
}
