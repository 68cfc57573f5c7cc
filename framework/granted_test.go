package framework_test

import (
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// countingLogger is a go-zookeeper logger that counts its lines and
// drops them.
type countingLogger struct{ lines atomic.Int64 }

func (l *countingLogger) Printf(string, ...any) { l.lines.Add(1) }

// The granted timeout comes from the connect response, not from
// go-zookeeper's log: with its info logging off, or its lines sent to a
// logger of the user's, the client still counts Lost from the timeout the
// server granted (asked 12 s, granted 3 s), for the first session and for
// the next one after a Lost.
func TestGranted_LostAfterTheGrantedTimeoutWhateverGoZookeeperLogs(t *testing.T) {
	t.Parallel()
	const asked, granted = 12 * time.Second, 3 * time.Second
	server := zktest.NewServer(t, zktesting.WithMaxSessionTimeout(granted))
	users := new(countingLogger)
	for _, tc := range []struct {
		name string
		opts []func(*zk.Conn)
	}{
		{"info logging off", []func(*zk.Conn){zk.WithLogInfo(false)}},
		{"the user's logger", []func(*zk.Conn){zk.WithLogger(users)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			proxy := zktest.NewProxy(t, server.Addr())
			c := connect(t, proxy.Addr(), framework.WithSessionTimeout(asked), framework.WithZKOptions(tc.opts...))
			require.Equal(t, granted, c.SessionTimeout(), "known once connected")
			states := recordStates(c)
			first := c.Session().ID()

			proxy.Pause()
			suspended := states.next(t, 10*time.Second)
			require.Equal(t, framework.Suspended, suspended.State)
			lost := states.next(t, 2*granted)
			require.Equal(t, framework.Lost, lost.State)
			assert.InDelta(t, granted.Seconds(), lost.At.Sub(suspended.At).Seconds(), 1, "Lost comes the granted timeout after Suspended")
			proxy.Resume()

			again := states.next(t, 15*time.Second)
			require.Equal(t, framework.Reconnected, again.State)
			require.True(t, again.NewSession)
			assert.NotEqual(t, first, again.SessionID)
			assert.Equal(t, granted, c.SessionTimeout(), "the new session's grant is read too")
			if tc.name == "the user's logger" {
				assert.Positive(t, users.lines.Load(), "the user's logger is not overridden")
			}
		})
	}
}

// A client dialed through the caller's own dialer cannot see the connect
// response: it counts with the timeout it asked for.
// A dialer of the caller's own is wrapped, not replaced: the client still
// reads the grant.
func TestGranted_OwnDialerIsWrappedAndTheGrantRead(t *testing.T) {
	t.Parallel()
	const asked = 12 * time.Second
	server := zktest.NewServer(t, zktesting.WithMaxSessionTimeout(3*time.Second))
	var dials atomic.Int32
	dial := func(network, address string, timeout time.Duration) (net.Conn, error) {
		dials.Add(1)
		return net.DialTimeout(network, address, timeout)
	}
	c := connect(t, server.Addr(), framework.WithSessionTimeout(asked),
		framework.WithZKOptions(zk.WithDialer(dial)))
	assert.Equal(t, 3*time.Second, c.SessionTimeout())
	assert.GreaterOrEqual(t, dials.Load(), int32(1), "the caller's dialer made the connection")
}
