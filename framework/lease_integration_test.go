package framework_test

import (
	"net"
	"runtime"
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

const leaseSession = 2 * time.Second

// deadline returns the session's lease deadline; the test fails without.
func deadline(t *testing.T, s *framework.Session) time.Time {
	t.Helper()
	d, ok := s.LeaseDeadline()
	require.True(t, ok, "the client keeps a lease")
	return d
}

func TestLease_PingsKeepTheLeaseAhead(t *testing.T) {
	c := connect(t, zktest.Servers(t), framework.WithSessionTimeout(leaseSession))
	s := c.Session()
	first := deadline(t, s)
	assert.WithinDuration(t, time.Now(), first, c.SessionTimeout(), "the lease runs from the connect request")
	require.Eventually(t, func() bool { return deadline(t, s).After(first) }, 10*time.Second, 10*time.Millisecond,
		"a ping's reply moves the lease on")
	assert.False(t, s.IsInterrupted(framework.SessionErrorPolicy))
}

// Requests that are never answered move nothing: the lease runs out while
// go-zookeeper still reports a connection, and every hold of the session
// ends under the session policy long before the client declares Lost.
func TestLease_UnansweredRequestsLetTheLeaseRunOut(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(leaseSession))
	s := c.Session()
	held := s.Interrupted(framework.SessionErrorPolicy)

	proxy.PauseRequests()
	paused := time.Now()
	zktest.WaitClosed(t, held, 10*time.Second, "the session policy's interruption")
	assert.False(t, s.IsLost(), "ended by the lease, not by a declared loss")
	d := deadline(t, s)
	assert.False(t, d.After(paused.Add(c.SessionTimeout())), "the lease %v ran past the last proof", d.Sub(paused))
	assert.WithinDuration(t, time.Now(), d, c.SessionTimeout()/2, "told at the deadline")
}

// A short disconnect of the same session keeps the lease going: the
// connect request of the new connection, under the same grant, restarts it
// later than any earlier proof, and holds under the session policy ride
// the disconnect out.
func TestLease_ReconnectToTheSameSessionContinuesTheLease(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(4*time.Second))
	states := recordStates(c)
	s := c.Session()
	held := s.Interrupted(framework.SessionErrorPolicy)
	before := deadline(t, s)

	proxy.Cut()
	require.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
	require.Equal(t, framework.Reconnected, states.next(t, 10*time.Second).State)
	require.Same(t, s, c.Session(), "the same session")
	after := deadline(t, s)
	assert.False(t, after.Before(before), "under the same grant the connect request proves more than any earlier reply")
	assert.False(t, after.After(time.Now().Add(c.SessionTimeout())), "no more than a timeout from a proof")
	assert.False(t, isClosed(held), "a hold under the session policy rides a short disconnect out")
	assert.False(t, s.IsInterrupted(framework.StandardErrorPolicy), "a new connection period")
}

// A new session starts a lease of its own at its connect response.
func TestLease_NewSessionStartsAFreshLease(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(leaseSession))
	old := c.Session()
	proxy.Pause()
	zktest.WaitClosed(t, old.Lost(), 20*time.Second, "the old session's loss")
	proxy.Resume()
	require.NoError(t, c.WaitConnected(testContext(t)))
	s := c.Session()
	require.NotNil(t, s)
	require.NotEqual(t, old.ID(), s.ID())
	assert.True(t, deadline(t, s).After(deadline(t, old)), "the new session's lease")
	assert.False(t, s.IsInterrupted(framework.SessionErrorPolicy))
	assert.True(t, old.IsInterrupted(framework.SessionErrorPolicy), "the old session's holds stay ended")
}

// A client dialed through a dialer of the caller's own cannot see the
// replies: it keeps no lease, and holds end on the connection events as
// before: under the session policy only at Lost.
// A dialer of the caller's own is wrapped, not replaced: the session
// keeps its lease, which runs out before the server can expire the
// session.
func TestLease_OwnDialerKeepsTheLease(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	var dials atomic.Int32
	dialer := func(network, address string, timeout time.Duration) (net.Conn, error) {
		dials.Add(1)
		return net.DialTimeout(network, address, timeout)
	}
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(leaseSession),
		framework.WithZKOptions(zk.WithDialer(dialer)))
	s := c.Session()
	_, ok := s.LeaseDeadline()
	require.True(t, ok, "a lease through the caller's dialer")
	require.GreaterOrEqual(t, dials.Load(), int32(1))

	proxy.PauseRequests()
	zktest.WaitClosed(t, s.Interrupted(framework.SessionErrorPolicy), 2*leaseSession, "the lease's end")
	assert.False(t, s.IsLost(), "the lease ends before the client declares the session lost")
}

// Close during a partition ends the lease's timer with the session: no
// goroutine and no lapse outlive the client.
func TestLease_CloseDuringAPartitionEndsTheLease(t *testing.T) {
	before := runtime.NumGoroutine()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c, err := framework.New([]string{proxy.Addr()}, framework.WithSessionTimeout(leaseSession))
	require.NoError(t, err)
	require.NoError(t, c.WaitConnected(testContext(t)))
	s := c.Session()
	proxy.PauseRequests()
	require.NoError(t, c.Close())
	assert.True(t, s.IsInterrupted(framework.SessionErrorPolicy))
	assert.True(t, s.IsLost())
	proxy.Close()
	if !goroutinesBackTo(before, 10*time.Second) {
		buf := make([]byte, 1<<20)
		t.Logf("goroutines: %d before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
	}
}

// goroutinesBackTo polls, on the test's goroutine (Eventually would add
// its own), until at most n goroutines run, or within passes.
func goroutinesBackTo(n int, within time.Duration) bool {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	end := time.After(within)
	for runtime.NumGoroutine() > n {
		select {
		case <-tick.C:
		case <-end:
			return false
		}
	}
	return true
}

// With a server lag the lease is shorter by the ping gap and the lag, and
// the pings still keep it.
func TestLease_ServerLagShortensTheLease(t *testing.T) {
	const timeout, lag = 4 * time.Second, 500 * time.Millisecond
	c := connect(t, zktest.Servers(t), framework.WithSessionTimeout(timeout), framework.WithServerLag(lag))
	require.Equal(t, timeout, c.SessionTimeout(), "the test server grants what it is asked")
	s := c.Session()
	length := time.Duration(float64(timeout)*(1-framework.DefaultLeaseMargin)) - timeout/3 - lag
	first := deadline(t, s)
	assert.False(t, first.After(time.Now().Add(length)), "the lease is at most %v ahead", length)
	require.Eventually(t, func() bool { return deadline(t, s).After(first.Add(timeout / 3)) }, 10*time.Second, 10*time.Millisecond,
		"pings move the lease on")
	assert.False(t, s.IsInterrupted(framework.SessionErrorPolicy), "the pings keep it")
}

// A server restarted with a lower maxSessionTimeout grants the surviving
// session a shorter timeout on its reconnect, and counts the expiry from
// that reconnect with it: the lease must move back to the connect request
// plus the new T·(1−ε), not keep the deadline the old grant had proved
// (issue 27, row 1).
//
// The first grant is long so that the session outlives the restart: a JVM
// restart on a loaded machine (CI runs packages side by side) took more
// than 30 s once, and the client rightly gave the session up.
func TestLease_AShorterGrantOnReconnectMovesTheLeaseBack(t *testing.T) {
	t.Parallel()
	const first = 60 * time.Second
	srv := zktest.NewServer(t, zktesting.WithMaxSessionTimeout(first))
	c := connect(t, srv.Addr(), framework.WithSessionTimeout(first))
	states := recordStates(c)
	s := c.Session()
	require.Equal(t, first, c.SessionTimeout())
	require.True(t, deadline(t, s).After(time.Now().Add(first/2)), "the lease of the %v grant", first)

	require.NoError(t, srv.SetMaxSessionTimeout(4*time.Second))
	require.NoError(t, srv.Restart(testContext(t)))
	require.Equal(t, framework.Suspended, states.next(t, first).State)
	reconnect := states.next(t, first)
	require.Equal(t, framework.Reconnected, reconnect.State)
	require.Same(t, s, c.Session(), "the session lived through the restart")
	require.Equal(t, 4*time.Second, c.SessionTimeout(), "the new grant")
	assert.False(t, deadline(t, s).After(time.Now().Add(4*time.Second)),
		"the lease %v ahead under a 4 s grant", time.Until(deadline(t, s)))
}
