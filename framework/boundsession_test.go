package framework_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
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
	t.Parallel()
	queueIntoANewSession(t, false, func(ctx context.Context, parent string) error {
		_, err := newClientOf(ctx).Multi(ctx, framework.CreateOp(parent+"/lease-", nil, framework.EphemeralSequential))
		return err
	})
}

// So must a plain create bound to a session (issue 20, item 4).
func TestCreate_BoundAndQueuedIntoANewSessionFailsAndLeavesNothing(t *testing.T) {
	t.Parallel()
	queueIntoANewSession(t, false, func(ctx context.Context, parent string) error {
		_, err := newClientOf(ctx).Create(ctx, parent+"/lease-", nil, framework.EphemeralSequential)
		return err
	})
}

// A bound transaction whose ctx ends while it is queued is still judged
// when it runs, in the new session, and what it made there is deleted
// (issue 20, item 5).
func TestMulti_BoundAndAbandonedWhileQueuedLeavesNothing(t *testing.T) {
	t.Parallel()
	queueIntoANewSession(t, true, func(ctx context.Context, parent string) error {
		_, err := newClientOf(ctx).Multi(ctx, framework.CreateOp(parent+"/lease-", nil, framework.EphemeralSequential))
		return err
	})
}

// clientKey carries the client under test to the calls of
// queueIntoANewSession.
type clientKey struct{}

func newClientOf(ctx context.Context) *framework.Client {
	return ctx.Value(clientKey{}).(*framework.Client)
}

// queueIntoANewSession makes call, bound to the client's session, several
// times while a write stalls, lets the session expire, and then the write
// go: go-zookeeper's send loop, once the write goes, picks at random
// between the dead connection's end and the next queued request, so some
// calls go out on the next connection, in a new session. Each must fail
// (with ErrSessionChanged, or the ctx's error when abandon ends it while
// queued), and no node may be left under parent.
func queueIntoANewSession(t *testing.T, abandon bool, call func(ctx context.Context, parent string) error) {
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
	callCtx, abandoned := context.WithCancel(context.WithValue(ctx, clientKey{}, c))
	defer abandoned()
	bound := framework.BindSession(callCtx, c.Session())

	d.arm()
	go func() { _, _, _ = c.Exists(ctx, parent) }() // its write stalls
	<-d.stalled
	const queued = 8
	done := make(chan error, queued)
	for range queued {
		go func() { done <- call(bound, parent) }()
	}
	// The server expires the silent session: its ephemeral marker goes.
	require.Eventually(t, func() bool {
		ok, _, err := observer.Exists(ctx, marker)
		return err == nil && !ok
	}, 30*time.Second, 20*time.Millisecond)
	if abandon {
		abandoned() // the calls have long been queued: they run on
	}
	close(d.release)

	for range queued {
		select {
		case err := <-done:
			if abandon {
				require.ErrorIs(t, err, context.Canceled)
			} else {
				require.ErrorIs(t, err, framework.ErrSessionChanged)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("a call never answered")
		}
	}
	// go-zookeeper sends in order, and the server answers in order: once
	// a later call has its answer, every queued one has run.
	_, _, err = c.Exists(ctx, parent)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(zktest.Children(t, observer, parent)) == 0 },
		15*time.Second, 20*time.Millisecond, "no lease node in the new session")
}

// A protected create that go-zookeeper sent on the next connection, in
// the client's new session, is not queued for deletion: the next attempt,
// in that session, adopts it, and the node it returns stays (issue 20,
// item 8). The background deletes are held back until every create has
// returned, so a delete queued for an adopted node would come after.
func TestCreateProtected_NodeOfTheCurrentSessionIsAdoptedNotDeleted(t *testing.T) {
	t.Parallel()
	servers := zktest.Servers(t)
	d := newStallingDialer()
	c, err := framework.Connect(testContext(t), []string{servers, servers},
		framework.WithSessionTimeout(shortSession), framework.WithZKOptions(zk.WithDialer(d.dial)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	observer := connect(t, servers)
	ctx := testContext(t)
	parent := zktest.UniquePath(t)
	// Persistent, not a container: empty once the marker's session is
	// gone, a container could be reaped before the queued creates land.
	_, err = c.Create(ctx, parent, nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	marker, err := c.Create(ctx, parent+"/marker", nil, framework.Ephemeral)
	require.NoError(t, err)
	release, held := framework.HoldBackgroundDeletes(c)

	d.arm()
	go func() { _, _, _ = c.Exists(ctx, parent) }() // its write stalls
	<-d.stalled
	const queued = 8
	nodes := make(chan framework.Node, queued)
	errs := make(chan error, queued)
	for range queued {
		go func() {
			n, err := c.CreateProtected(ctx, parent+"/lease-", nil, framework.EphemeralSequential)
			nodes <- n
			errs <- err
		}()
	}
	require.Eventually(t, func() bool {
		ok, _, err := observer.Exists(ctx, marker)
		return err == nil && !ok
	}, 30*time.Second, 20*time.Millisecond)
	close(d.release)

	var got []framework.Node
	for range queued {
		select {
		case n := <-nodes:
			require.NoError(t, <-errs)
			got = append(got, n)
		case <-time.After(30 * time.Second):
			t.Fatal("a create never answered")
		}
	}
	release()
	for _, done := range held() {
		zktest.WaitClosed(t, done, 30*time.Second, "a background delete")
	}
	session := c.Session()
	require.NotNil(t, session)
	for _, n := range got {
		ok, stat, err := observer.Exists(ctx, n.Path)
		require.NoError(t, err)
		require.True(t, ok, "the returned node %s was deleted", n.Name)
		assert.Equal(t, session.ID(), stat.EphemeralOwner)
	}
}
