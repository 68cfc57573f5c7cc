package zkcontainer_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes"
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

	// Every session event is kept: a restart brings one or more a second
	// while the client retries, and a bounded queue that drops could lose
	// the one the test waits for.
	var events stateLog
	conn, _, err := zk.Connect([]string{s.Addr()}, 20*time.Second, zk.WithLogger(&events),
		zk.WithDialer(boundedHandshake(20*time.Second/3)),
		zk.WithEventCallback(func(ev zk.Event) {
			if ev.Type == zk.EventSession {
				events.add(ev.State)
			}
		}))
	require.NoError(t, err)
	defer conn.Close()
	await := func(want zk.State) {
		t.Helper()
		require.NoErrorf(t, events.await(ctx, want), "no %v", want)
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
	err = s.Restart(ctx)
	assert.ErrorIs(t, err, zkcontainer.ErrClosed)
	assert.ErrorIs(t, err, zkrecipes.ErrClosed, "the library's one ErrClosed")
}

// boundedHandshake dials as go-zookeeper does, and gives a connection's
// handshake up when the server's answer has not begun within bound (as
// internal/zktest's BoundedHandshake, which this module's tests do not
// import). ZooKeeper 3.8.0 leaves a connection that arrives while it starts
// open and unanswered (ZOOKEEPER-5051), which a client reconnecting to a
// restarted server meets; go-zookeeper alone waits 20/3 of the session
// timeout for the answer, past the session's expiry.
func boundedHandshake(bound time.Duration) zk.Dialer {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		c, err := net.DialTimeout(network, address, timeout)
		if err != nil {
			return nil, err
		}
		return &handshakeConn{Conn: c, bound: bound}, nil
	}
}

// handshakeConn caps the read deadline until the server's first bytes.
type handshakeConn struct {
	net.Conn
	bound    time.Duration
	answered bool // go-zookeeper's reading goroutines touch it one after the other
}

func (c *handshakeConn) SetReadDeadline(t time.Time) error {
	if !c.answered && !t.IsZero() && time.Until(t) > c.bound {
		t = time.Now().Add(c.bound)
	}
	return c.Conn.SetReadDeadline(t)
}

func (c *handshakeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.answered = true
	}
	return n, err
}

// stateLog keeps a connection's session states, all of them, in order,
// and what go-zookeeper logs, for the message of a failed await.
type stateLog struct {
	mu     sync.Mutex
	states []zk.State
	read   int // states await has gone past
	said   []string
}

func (l *stateLog) add(s zk.State) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.states = append(l.states, s)
}

// Printf keeps one of go-zookeeper's messages.
func (l *stateLog) Printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.said = append(l.said, time.Now().Format(time.StampMilli)+" "+fmt.Sprintf(format, args...))
}

// await returns once a state after the last one awaited is want.
func (l *stateLog) await(ctx context.Context, want zk.State) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !l.next(want) {
		select {
		case <-ctx.Done():
			l.mu.Lock()
			defer l.mu.Unlock()
			return fmt.Errorf("%w; states %v; go-zookeeper said:\n%s", ctx.Err(), l.states, strings.Join(l.said, "\n"))
		case <-tick.C:
		}
	}
	return nil
}

// next reports whether want is among the states not yet gone past, and
// goes past them up to it.
func (l *stateLog) next(want zk.State) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for ; l.read < len(l.states); l.read++ {
		if l.states[l.read] == want {
			l.read++
			return true
		}
	}
	return false
}
