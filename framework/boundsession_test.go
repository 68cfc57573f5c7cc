package framework_test

import (
	"net"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// stallingDialer dials the server, and can stall the next write of the
// client until released, so that later requests queue behind it in
// go-zookeeper while the client still looks connected.
type stallingDialer struct {
	mu      sync.Mutex
	armed   bool
	stalled chan struct{} // closed when a write is stalled
	release chan struct{} // closing it lets the write go
}

func newStallingDialer() *stallingDialer {
	return &stallingDialer{stalled: make(chan struct{}), release: make(chan struct{})}
}

func (d *stallingDialer) dial(network, address string, timeout time.Duration) (net.Conn, error) {
	conn, err := net.DialTimeout(network, address, timeout)
	if err != nil {
		return nil, err
	}
	return &stallingConn{Conn: conn, d: d}, nil
}

func (d *stallingDialer) arm() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.armed = true
}

type stallingConn struct {
	net.Conn
	d *stallingDialer
}

func (c *stallingConn) Write(p []byte) (int, error) {
	c.d.mu.Lock()
	stall := c.d.armed
	c.d.armed = false
	c.d.mu.Unlock()
	if stall {
		close(c.d.stalled)
		<-c.d.release
	}
	return c.Conn.Write(p)
}

// A transaction bound to a session that go-zookeeper queued behind a
// stalled write, and sent only on the next connection, in a new session,
// must not create nodes there: it fails with ErrSessionChanged and leaves
// nothing (hardening item 2: a semaphore permit leaked this way).
func TestMulti_QueuedIntoANewSessionFailsAndLeavesNothing(t *testing.T) {
	servers := zktest.Servers(t)
	d := newStallingDialer()
	// Two addresses, as with an ensemble: go-zookeeper then moves to the
	// next one without flushing what was queued for the dead connection.
	c, err := framework.Connect(testContext(t), []string{servers, servers},
		framework.WithSessionTimeout(shortSession), framework.WithZKOptions(zk.WithDialer(d.dial)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	observer := connect(t, servers)
	ctx := testContext(t)
	parent := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, parent))
	marker, err := c.Create(ctx, parent+"/marker", nil, framework.Ephemeral)
	require.NoError(t, err)
	bound := framework.BindSession(ctx, c.Session())

	d.arm()
	go func() { _, _, _ = c.Exists(ctx, parent) }() // its write stalls
	<-d.stalled
	// go-zookeeper's send loop, once the write goes, picks at random
	// between the dead connection's end and the next queued request: of
	// several queued transactions, some go out on the next connection.
	const queued = 8
	done := make(chan error, queued)
	for range queued {
		go func() {
			_, err := c.Multi(bound, framework.CreateOp(parent+"/lease-", nil, framework.EphemeralSequential))
			done <- err
		}()
	}
	// The server expires the silent session: its ephemeral marker goes.
	require.Eventually(t, func() bool {
		ok, _, err := observer.Exists(ctx, marker)
		return err == nil && !ok
	}, 30*time.Second, 20*time.Millisecond)
	close(d.release)

	for range queued {
		select {
		case err := <-done:
			require.ErrorIs(t, err, framework.ErrSessionChanged)
		case <-time.After(30 * time.Second):
			t.Fatal("a transaction never answered")
		}
	}
	require.Eventually(t, func() bool { return len(zktest.Children(t, observer, parent)) == 0 },
		15*time.Second, 20*time.Millisecond, "no lease node in the new session")
}
