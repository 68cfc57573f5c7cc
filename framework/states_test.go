package framework_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

const shortSession = 2 * time.Second

func TestStates_CutGivesSuspendedThenReconnectedInTheSameSession(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	states := recordStates(c)
	session := c.Session()
	require.NotNil(t, session)
	suspended := session.Suspended()

	proxy.Cut()
	s := states.next(t, 10*time.Second)
	assert.Equal(t, framework.Suspended, s.State)
	assert.Equal(t, session.ID(), s.SessionID)
	s = states.next(t, 10*time.Second)
	assert.Equal(t, framework.Reconnected, s.State)
	assert.False(t, s.NewSession)
	assert.Equal(t, session.ID(), s.SessionID)

	assert.Same(t, session, c.Session())
	assert.True(t, isClosed(suspended), "the hold's suspension channel closed")
	assert.False(t, session.IsLost())
	assert.False(t, isClosed(session.Suspended()), "a new connection period began")
}

// A server grants at most its maxSessionTimeout, and expires the session
// after that: the client counts Lost from the timeout granted, not the one
// it asked for (a default server grants 40 s to a client asking for 60 s).
func TestStates_LostAfterTheSessionTimeoutTheServerGranted(t *testing.T) {
	t.Parallel()
	const granted = 3 * time.Second
	server := zktest.NewServer(t, zktesting.WithMaxSessionTimeout(granted))
	proxy := zktest.NewProxy(t, server.Addr())
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(30*time.Second))
	require.Eventually(t, func() bool { return c.SessionTimeout() == granted }, 5*time.Second, 10*time.Millisecond,
		"the client learns the timeout granted (got %v)", c.SessionTimeout())
	states := recordStates(c)

	proxy.Pause()
	suspended := states.next(t, 10*time.Second)
	require.Equal(t, framework.Suspended, suspended.State)
	lost := states.next(t, 2*granted)
	require.Equal(t, framework.Lost, lost.State)
	assert.InDelta(t, granted.Seconds(), lost.At.Sub(suspended.At).Seconds(), 1, "Lost comes the granted timeout after Suspended")
	proxy.Resume()
}

func TestStates_PauseLongerThanTheSessionGivesLostThenANewSession(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	_, err := c.Create(ctx, path, nil, framework.Ephemeral, framework.WithParents())
	require.NoError(t, err)
	old := c.Session()
	bound := framework.BindSession(ctx, old)

	proxy.Pause()
	assert.Equal(t, framework.Suspended, states.next(t, 10*time.Second).State)
	waiting := make(chan error, 1)
	go func() { // a call bound to the session, waiting for the connection
		_, _, err := c.Get(bound, path)
		waiting <- err
	}()
	lost := states.next(t, 10*time.Second)
	assert.Equal(t, framework.Lost, lost.State)
	assert.Equal(t, old.ID(), lost.SessionID)
	assert.True(t, old.IsLost())
	select {
	case err := <-waiting:
		require.ErrorIs(t, err, framework.ErrSessionChanged, "the waiting call ends with its session")
	case <-time.After(5 * time.Second):
		t.Fatal("a call bound to the lost session kept waiting for a connection")
	}
	proxy.Resume()

	s := states.next(t, 15*time.Second)
	assert.Equal(t, framework.Reconnected, s.State)
	assert.True(t, s.NewSession)
	assert.NotEqual(t, old.ID(), s.SessionID)
	require.NotNil(t, c.Session())
	assert.Equal(t, s.SessionID, c.Session().ID())

	_, _, err = c.Get(bound, path)
	require.ErrorIs(t, err, framework.ErrSessionChanged, "a call bound to the lost session is refused")
	require.Eventually(t, func() bool {
		ok, _, err := c.Exists(ctx, path)
		return err == nil && !ok
	}, 10*time.Second, 50*time.Millisecond, "the old session's ephemeral node is gone")
}

func TestStates_ListenersGetEveryTransitionInOrder(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	var mu sync.Mutex
	var slow []framework.ConnectionState
	c.AddListener(func(s framework.StateChange) {
		time.Sleep(20 * time.Millisecond) // a slow listener loses nothing
		mu.Lock()
		slow = append(slow, s.State)
		mu.Unlock()
	})
	fast := recordStates(c)
	const cuts = 5
	for range cuts {
		proxy.Cut()
		require.Equal(t, framework.Suspended, fast.next(t, 10*time.Second).State)
		require.Equal(t, framework.Reconnected, fast.next(t, 10*time.Second).State)
	}
	want := make([]framework.ConnectionState, 0, 2*cuts)
	for range cuts {
		want = append(want, framework.Suspended, framework.Reconnected)
	}
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(slow) == len(want)
	}, 10*time.Second, 20*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, want, slow)
}

func TestRetry_WaitsForTheConnectionInsteadOfSpendingRetries(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second), framework.WithRetryPolicy(framework.NoRetry()))
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))

	proxy.Pause()
	proxy.Cut() // suspended at once, not a receive timeout later
	require.Equal(t, framework.Suspended, states.next(t, 15*time.Second).State)
	done := make(chan error, 1)
	go func() {
		_, _, err := c.Children(ctx, path)
		done <- err
	}()
	time.Sleep(300 * time.Millisecond) // the call is waiting, not failing
	select {
	case err := <-done:
		t.Fatalf("the call returned while disconnected: %v", err)
	default:
	}
	proxy.Resume()
	select {
	case err := <-done:
		require.NoError(t, err, "with no retries at all, the call still succeeds once reconnected")
	case <-time.After(15 * time.Second):
		t.Fatal("the call did not finish after the connection came back")
	}
}

// A retry's wait that began while the connection was down ends when the
// connection comes back: a backoff grown during a long outage (a server
// restart under load) is not slept out after it. Clean-ups in the
// background retry the same way, so a cancelled waiter's node no longer
// outlives the reconnect by a backoff.
func TestRetry_AWaitThatBeganDisconnectedEndsAtTheReconnect(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second),
		framework.WithConnectionTimeout(300*time.Millisecond), framework.WithRetryPolicy(framework.RetryNTimes(3, time.Minute)))
	states := recordStates(c)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))

	proxy.Pause()
	proxy.Cut() // suspended at once, not a receive timeout later
	require.Equal(t, framework.Suspended, states.next(t, 15*time.Second).State)
	done := make(chan error, 1)
	go func() { // ends when the call returns
		_, _, err := c.Children(ctx, path)
		done <- err
	}()
	time.Sleep(time.Second) // the first try has given up waiting; the minute's wait has begun
	proxy.Resume()
	require.Equal(t, framework.Reconnected, states.next(t, 15*time.Second).State)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("the call slept out its retry wait after the connection came back")
	}
}

func TestRetry_ContextEndsAWaitingCall(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	states := recordStates(c)
	proxy.Pause()
	proxy.Cut() // suspended at once, not a receive timeout later
	require.Equal(t, framework.Suspended, states.next(t, 15*time.Second).State)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, _, err := c.Get(ctx, "/")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	proxy.Resume()
}

func TestRetry_ExhaustedRetriesReportTheConnectionError(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second),
		framework.WithConnectionTimeout(100*time.Millisecond),
		framework.WithRetryPolicy(framework.RetryNTimes(2, 10*time.Millisecond)))
	states := recordStates(c)
	proxy.Pause()
	proxy.Cut() // suspended at once, not a receive timeout later
	require.Equal(t, framework.Suspended, states.next(t, 15*time.Second).State)
	_, _, err := c.Get(testContext(t), "/")
	require.ErrorIs(t, err, framework.ErrNotConnected)
	assert.NotErrorIs(t, err, zk.ErrNoNode)
	proxy.Resume()
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
