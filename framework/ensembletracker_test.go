package framework_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// An ensemble moved to new servers by reconfiguration (servers 4 and 5
// added, 1 to 3 removed and stopped) keeps the session of a client that
// follows its configuration, with its chroot, its hold, its term and its
// watch; a plain go-zookeeper client and a client that does not follow,
// both left with the old list, lose theirs. The holds use the session
// policy: the client is disconnected when its server goes, and a hold of
// the standard policy ends at any disconnect, tracked or not.
func TestClient_FollowsAnEnsembleMovedToNewServers(t *testing.T) {
	t.Parallel()
	e := zktest.NewEnsemble(t, 3, zktesting.WithReconfig())
	ctx := testContext(t)
	const chroot = "/app" // the ensemble is this test's own
	old := e.Addrs()
	plain, _, err := zk.Connect(old, 4*time.Second, zk.WithLogInfo(false), zk.WithLogger(quiet{}))
	require.NoError(t, err)
	t.Cleanup(plain.Close)
	_, err = plain.Create(chroot, nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err, "the chroot")
	_, err = plain.Create(chroot+"/plain", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	c, err := framework.Connect(ctx, []string{e.ConnectString() + chroot}, framework.WithSessionTimeout(20*time.Second))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	states := recordStates(c)
	untracked, err := framework.Connect(ctx, old, framework.WithoutEnsembleTracking(), framework.WithSessionTimeout(4*time.Second))
	require.NoError(t, err)
	t.Cleanup(func() { _ = untracked.Close() })
	untrackedStates := recordStates(untracked)
	_, err = untracked.Create(ctx, chroot+"/untracked", nil, framework.Ephemeral)
	require.NoError(t, err)

	session := c.Session()
	hold, term := holdAndLead(t, c)
	w, err := c.Watch(ctx, "/watched", framework.WatchPersistent)
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.Close(context.Background()) })

	added, err := e.AddMembers(ctx, 2)
	require.NoError(t, err)
	committed := time.Now()
	all := e.Addrs()
	require.Eventually(t, func() bool { return assert.ObjectsAreEqual(all, sorted(framework.FollowedServers(c), all)) },
		20*time.Second, time.Millisecond, "the client follows the grown ensemble")
	t.Logf("the client followed the grown ensemble %v after the reconfig returned", time.Since(committed))
	require.NoError(t, e.RemoveMembers(ctx, 0, 1, 2))
	moved := []string{all[added[0]], all[added[1]]}
	require.Eventually(t, func() bool { return assert.ObjectsAreEqual(moved, sorted(framework.FollowedServers(c), moved)) },
		20*time.Second, 20*time.Millisecond, "the client follows the moved ensemble")
	for i := range 3 {
		require.NoError(t, e.StopMember(i))
	}
	// A stop may end the client's connection (to a removed member that
	// still served it). A create sent on the next connection ahead of the
	// watch's restore would go untold, as Watch says: the server replays
	// nothing to setWatches2, and WatchResumed asks for a read instead
	// (TestWatch_OwnWriteAheadOfTheRestoreIsFoundFromWatchResumed). So the
	// create waits until a new member has answered and the watch is back
	// on that connection.
	require.Eventually(t, func() bool { return exists(t, c, "/") && c.Watching("/watched", framework.WatchPersistent) },
		20*time.Second, 20*time.Millisecond, "the watch is set again on the moved ensemble")
	_, err = c.Create(ctx, "/watched", []byte("after the move"), framework.Persistent)
	require.NoError(t, err, "the client works on the new servers")
	awaitWatchEvent(t, w, framework.NodeCreated, "/watched")
	assert.Same(t, session, c.Session(), "the same session")
	assert.Nil(t, hold.Err(), "the hold stands")
	assert.False(t, isClosed(hold.Lost()), "the hold was never lost")
	assert.False(t, isClosed(term.Lost()), "the term never ended")
	assert.Eventually(t, func() bool { return !exists(t, c, "/plain") }, 30*time.Second, 50*time.Millisecond,
		"the plain client's session expires: its ephemeral node goes")
	waitForState(t, untrackedStates, framework.Lost)
	assert.Eventually(t, func() bool { return !exists(t, c, "/untracked") }, 30*time.Second, 50*time.Millisecond,
		"the untracked client's session expires")
	assert.Same(t, session, c.Session(), "the same session, all along")
	assertNoState(t, states, framework.Lost)
	assert.False(t, isClosed(hold.Lost()), "the hold was never lost")
	assert.False(t, isClosed(term.Lost()), "the term never ended")
}

// exists tells whether path exists, without require (for Eventually).
func exists(t *testing.T, c *framework.Client, path string) bool {
	ok, _, err := c.Exists(testContext(t), path)
	assert.NoError(t, err)
	return ok
}

// holdAndLead takes a mutex and a leader term on c, under the session
// error policy.
func holdAndLead(t *testing.T, c *framework.Client) (*mutex.Hold, *leader.Leadership) {
	t.Helper()
	ctx := testContext(t)
	m, err := mutex.New(c, "/lock", mutex.WithErrorPolicy(framework.SessionErrorPolicy))
	require.NoError(t, err)
	hold, err := m.Acquire(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = hold.Release(context.Background()) })
	latch, err := leader.NewLatch(c, "/leader", leader.WithErrorPolicy(framework.SessionErrorPolicy))
	require.NoError(t, err)
	require.NoError(t, latch.Start(ctx))
	t.Cleanup(func() { _ = latch.Close(context.Background()) })
	term, err := latch.Await(ctx)
	require.NoError(t, err)
	return hold, term
}

// awaitWatchEvent waits for an event of typ on path, passing over the
// resumes a reconnect brings.
func awaitWatchEvent(t *testing.T, w *framework.Watch, typ framework.WatchEventType, path string) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev := <-w.Events():
			if ev.Type == typ && ev.Path == path {
				return
			}
			require.NotEqual(t, framework.WatchSessionChanged, ev.Type, "the watch's session changed")
		case <-timeout:
			t.Fatalf("no %v of %s within 30 s", typ, path)
		}
	}
}

// assertNoState fails the test if the recorder holds a change to s.
func assertNoState(t *testing.T, r *stateRecorder, s framework.ConnectionState) {
	t.Helper()
	for {
		select {
		case change := <-r.changes:
			assert.NotEqual(t, s, change.State, "state %v", change)
		default:
			return
		}
	}
}

// Config reads the ensemble's members, outside the client's chroot.
func TestClient_ConfigNamesTheMembersOutsideTheChroot(t *testing.T) {
	t.Parallel()
	e := zktest.NewEnsemble(t, 3, zktesting.WithReconfig())
	c, err := framework.Connect(testContext(t), []string{e.ConnectString() + "/app"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	cfg, err := c.Config(testContext(t))
	require.NoError(t, err)
	assert.NotZero(t, cfg.Version)
	require.Len(t, cfg.Members, 3)
	for i, m := range cfg.Members {
		assert.Equal(t, int64(i+1), m.ID)
		assert.Equal(t, framework.RoleParticipant, m.Role)
		assert.Equal(t, e.Addrs()[i], m.ClientAddr)
		assert.NotEmpty(t, m.QuorumAddr)
		assert.NotEmpty(t, m.ElectionAddr)
	}
	assert.Equal(t, "/app", c.Namespace(), "the namespace is the chroot still")
	require.NoError(t, e.Member(0).Stop())
	_, err = c.Config(testContext(t))
	assert.NoError(t, err, fmt.Sprintf("a read through another member after member 1 stopped; dialing %v", framework.FollowedServers(c)))
}

// A standalone server keeps no configuration: Config says so with an
// empty one, and the tracker leaves the list alone (and, asking srvr
// first, does not even read).
func TestClient_ConfigOfAStandaloneServerIsEmpty(t *testing.T) {
	t.Parallel()
	c := connect(t, zktest.Servers(t))
	cfg, err := c.Config(testContext(t))
	require.NoError(t, err)
	assert.Empty(t, cfg.Members)
	assert.Nil(t, framework.FollowedServers(c))
}

// quiet drops go-zookeeper's log lines: the plain client dials the
// stopped servers until the test ends.
type quiet struct{}

func (quiet) Printf(string, ...any) {}

// The answer to the tracker's read is lost with its connection: the
// tracker reads again on the next connection, follows the configuration
// and sets its watch, which then tells the next reconfiguration.
func TestClient_TrackerReadsAgainAfterItsAnswerIsLost(t *testing.T) {
	t.Parallel()
	e := zktest.NewEnsemble(t, 3, zktesting.WithReconfig())
	ctx := testContext(t)
	d := &configAnswerLoser{}
	d.armed.Store(true)
	c, err := framework.Connect(ctx, e.Addrs(), framework.WithSessionTimeout(20*time.Second),
		framework.WithZKOptions(zk.WithDialer(d.dial)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	session := c.Session()

	require.Eventually(t, func() bool { return assert.ObjectsAreEqual(e.Addrs(), sorted(framework.FollowedServers(c), e.Addrs())) },
		20*time.Second, 20*time.Millisecond, "the client follows the configuration read on its next connection")
	assert.False(t, d.armed.Load(), "the first read's answer was lost")
	_, err = e.AddMembers(ctx, 1)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return assert.ObjectsAreEqual(e.Addrs(), sorted(framework.FollowedServers(c), e.Addrs())) },
		20*time.Second, 20*time.Millisecond, "the watch set by the second read tells the reconfiguration")
	assert.Same(t, session, c.Session())
}

// A new session ends the tracker's one-shot watch: the tracker reads the
// configuration again in the new session, and follows the next change.
func TestClient_TrackerFollowsOnInANewSession(t *testing.T) {
	t.Parallel()
	e := zktest.NewEnsemble(t, 3, zktesting.WithReconfig())
	ctx := testContext(t)
	faults := zktesting.NewFaults()
	c, err := framework.Connect(ctx, e.Addrs(), framework.WithSessionTimeout(2*time.Second),
		framework.WithZKOptions(zk.WithDialer(faults.Dial)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	states := recordStates(c)
	require.Eventually(t, func() bool { return framework.FollowedServers(c) != nil }, 20*time.Second, 20*time.Millisecond)
	old := c.Session()

	require.NoError(t, faults.ExpireSession(ctx, e.ConnectString(), old.ID()))
	waitForState(t, states, framework.Lost)
	require.Eventually(t, func() bool { s := c.Session(); return s != nil && s != old }, 30*time.Second, 20*time.Millisecond,
		"a new session")
	_, err = e.AddMembers(ctx, 1)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return assert.ObjectsAreEqual(e.Addrs(), sorted(framework.FollowedServers(c), e.Addrs())) },
		20*time.Second, 20*time.Millisecond, "the tracker follows the change from the new session")
}

// configAnswerLoser dials as net.DialTimeout does; once armed, the
// connection that carries a read of /zookeeper/config loses everything
// the server sends after it, and ends.
type configAnswerLoser struct{ armed atomic.Bool }

func (d *configAnswerLoser) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	conn, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	return &answerLosingConn{Conn: conn, d: d}, nil
}

type answerLosingConn struct {
	net.Conn
	d      *configAnswerLoser
	losing atomic.Bool
}

// Write marks the connection losing before it sends the read, so that no
// answer to it can be read.
func (c *answerLosingConn) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte("/zookeeper/config")) && c.d.armed.CompareAndSwap(true, false) {
		c.losing.Store(true)
	}
	return c.Conn.Write(b)
}

func (c *answerLosingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if c.losing.Load() {
		_ = c.Conn.Close()
		return 0, io.ErrUnexpectedEOF
	}
	return n, err
}

// sorted returns got in the order of want when both hold the same
// elements (the client shuffles the list it follows), else got.
func sorted(got, want []string) []string {
	if len(got) != len(want) {
		return got
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			return got
		}
	}
	return want
}

// A client that reaches an ensemble through addresses its configuration
// does not name (a proxy here; NAT or a load balancer elsewhere) keeps
// its list: the configuration's addresses may not be reachable from it.
func TestClient_BehindAProxyKeepsItsList(t *testing.T) {
	t.Parallel()
	e := zktest.NewEnsemble(t, 3, zktesting.WithReconfig())
	proxy := zktest.NewProxy(t, e.Addrs()[0])
	logs := &syncBuffer{}
	c, err := framework.Connect(testContext(t), []string{proxy.Addr()}, framework.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "keeping the server list") },
		20*time.Second, 20*time.Millisecond, "the tracker reads the configuration and decides")
	assert.Equal(t, int64(1), proxy.Requests(zktest.OpGetData))
	assert.Nil(t, framework.FollowedServers(c))
}
