package framework_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// ZooKeeper 3.8.0 standalone leaves a connection that arrives while it
// starts open and unanswered (ZOOKEEPER-5051), which a client reconnecting
// to a restarted server meets; go-zookeeper waits ten receive timeouts
// (20/3 of the session timeout) for the answer to its handshake. The
// client gives such a handshake up in time to connect again within the
// session timeout, and keeps its session.
func TestConnect_AnUnansweredHandshakeIsGivenUpInTimeToKeepTheSession(t *testing.T) {
	t.Parallel()
	const timeout = 6 * time.Second
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(timeout))
	require.Equal(t, timeout, c.SessionTimeout())
	session := c.Session()
	states := recordStates(c)

	proxy.StallNextConnection()
	proxy.Cut()
	require.Equal(t, framework.Suspended, states.next(t, timeout).State)
	again := states.next(t, timeout)
	require.Equal(t, framework.Reconnected, again.State, "reconnected before the session timeout")
	assert.False(t, again.NewSession)
	assert.Same(t, session, c.Session())
	assert.Equal(t, int64(1), proxy.Stalled(), "the reconnect met the unanswered connection")
}
