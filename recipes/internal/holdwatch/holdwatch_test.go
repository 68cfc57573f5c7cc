package holdwatch_test

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/internal/holdwatch"
)

func TestMain(m *testing.M) { zktest.Main(m) }

var (
	errLost    = errors.New("lost")
	errExpired = errors.New("expired")
	errDone    = errors.New("done")
)

// start creates an ephemeral node through c and watches it.
func start(t *testing.T, c *framework.Client, policy framework.ErrorPolicy, maxHold time.Duration) *holdwatch.Watch {
	t.Helper()
	node, err := c.CreateProtected(zktest.Context(t), zktest.UniquePath(t)+"/n-", nil, framework.EphemeralSequential, framework.WithParents())
	require.NoError(t, err)
	return holdwatch.Start(holdwatch.Config{Node: node, Kind: &holdwatch.Kind{
		Client: c, Policy: policy, MaxHold: maxHold,
		Lost: errLost, Expired: errExpired, What: "test hold",
	}})
}

// The node's watch is being set when the connection goes: the suspension
// must still end the hold at once, before the session can be lost.
func TestWatch_SuspensionEndsTheHoldWhileTheWatchIsBeingSet(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := zktest.Connect(t, proxy.Addr(), framework.WithSessionTimeout(3*time.Second))
	w := start(t, c, framework.StandardErrorPolicy, 0)
	session := c.Session()
	proxy.Pause()
	lost := w.Lost() // arms: its getData hangs in the paused proxy
	select {
	case <-lost:
	case <-session.Lost():
		t.Fatal("the session was lost before the hold was told")
	case <-time.After(30 * time.Second):
		t.Fatal("the hold was never told")
	}
	require.ErrorIs(t, w.Err(), errLost)
	assert.Contains(t, w.Err().Error(), "connection suspended")
	proxy.Resume()
}

func TestWatch_DeletedNodeEndsTheHold(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	node, err := c.CreateProtected(zktest.Context(t), zktest.UniquePath(t)+"/n-", nil, framework.EphemeralSequential, framework.WithParents())
	require.NoError(t, err)
	w := holdwatch.Start(holdwatch.Config{Node: node, Kind: &holdwatch.Kind{Client: c, Lost: errLost, What: "test hold"}})
	lost := w.Lost() // whether the watch is set yet or not, a deletion ends the hold
	require.NoError(t, c.Delete(zktest.Context(t), node.Path, -1))
	zktest.WaitClosed(t, lost, 10*time.Second, "loss after the node was deleted")
	require.ErrorIs(t, w.Err(), errLost)
	assert.Contains(t, w.Err().Error(), "deleted")
}

func TestWatch_MaxHoldEndsTheHoldAndDeletesTheNode(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	w := start(t, c, framework.StandardErrorPolicy, 100*time.Millisecond)
	zktest.WaitClosed(t, w.Lost(), 10*time.Second, "loss at the maximum hold time")
	require.ErrorIs(t, w.Err(), errLost)
	require.ErrorIs(t, w.Err(), errExpired)
	prior, first := w.Finish(errDone)
	assert.True(t, first)
	assert.ErrorIs(t, prior, errExpired, "a release after the loss gets the loss")
}

func TestWatch_FinishOnceAndNoLossAfterIt(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	w := start(t, c, framework.StandardErrorPolicy, 50*time.Millisecond)
	prior, first := w.Finish(errDone)
	assert.NoError(t, prior)
	assert.True(t, first)
	prior, first = w.Finish(errDone)
	assert.NoError(t, prior)
	assert.False(t, first, "the second Finish does nothing")
	time.Sleep(100 * time.Millisecond) // past the maximum hold: nothing may happen now
	assert.Same(t, errDone, w.Err())
	select {
	case <-w.Lost():
		t.Fatal("a finished hold was signalled lost")
	default:
	}
}

// Renew moves the deadline; a hold that has ended is not renewed.
func TestWatch_RenewMovesTheDeadlineUntilTheHoldEnds(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	const bound = 400 * time.Millisecond
	w := start(t, c, framework.StandardErrorPolicy, bound)
	for range 6 { // 1.2 s: three bounds
		time.Sleep(bound / 2)
		require.NoError(t, w.Renew(time.Now()))
	}
	require.NoError(t, w.Err())
	zktest.WaitClosed(t, w.Lost(), 10*time.Second, "the loss channel, once renewals stop")
	require.ErrorIs(t, w.Err(), errExpired)
	require.ErrorIs(t, w.Renew(time.Now()), errExpired, "no renewal after the loss")

	done := start(t, c, framework.StandardErrorPolicy, bound)
	done.Finish(errDone)
	require.ErrorIs(t, done.Renew(time.Now()), errDone, "no renewal after the end")
}

// A hold is expired from its deadline on, even while its timer has not
// run (a loaded process runs it late): Err says so, a renewal that comes
// after the deadline does not bring the hold back, and Lost is closed.
func TestWatch_DeadlinePassedEndsTheHoldBeforeItsTimerRuns(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	const bound = 100 * time.Millisecond
	w := start(t, c, framework.StandardErrorPolicy, bound)
	w.StopTimer()
	lost := w.Lost()
	deadline := w.Deadline()
	require.Eventually(t, func() bool { return time.Now().After(deadline) }, 10*time.Second, time.Millisecond)
	require.ErrorIs(t, w.Err(), errExpired, "the deadline has passed")
	zktest.WaitClosed(t, lost, time.Second, "the loss channel")
	require.ErrorIs(t, w.Renew(time.Now()), errExpired, "a late renewal")
	assert.Equal(t, deadline, w.Deadline(), "the deadline did not move")

	late := start(t, c, framework.StandardErrorPolicy, bound)
	late.StopTimer()
	deadline = late.Deadline()
	require.Eventually(t, func() bool { return time.Now().After(deadline) }, 10*time.Second, time.Millisecond)
	require.ErrorIs(t, late.Renew(time.Now()), errExpired, "a renewal is the first to look after the deadline")
	prior, first := late.Finish(errDone)
	assert.True(t, first)
	assert.ErrorIs(t, prior, errExpired, "a release after the deadline gets the loss")
}

// Idle holds cost no goroutine each: the client fans its session's signals
// out to them. A suspension still ends every one of them.
func TestWatch_IdleHoldsHaveNoGoroutineEach(t *testing.T) {
	const holds = 200
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := zktest.Connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	parent := zktest.UniquePath(t)
	nodes := make([]framework.Node, holds)
	for i := range nodes {
		var err error
		nodes[i], err = c.CreateProtected(zktest.Context(t), parent+"/n-", nil, framework.EphemeralSequential, framework.WithParents())
		require.NoError(t, err)
	}
	before := runtime.NumGoroutine()
	watches := make([]*holdwatch.Watch, holds)
	for i, node := range nodes {
		watches[i] = holdwatch.Start(holdwatch.Config{Node: node, Kind: &holdwatch.Kind{
			Client: c, Policy: framework.StandardErrorPolicy, Lost: errLost, What: "test hold",
		}})
	}
	assert.Less(t, runtime.NumGoroutine()-before, holds/10, "goroutines for %d idle holds", holds)

	proxy.Cut()
	for i, w := range watches {
		require.Eventually(t, func() bool { return errors.Is(w.Err(), errLost) }, 10*time.Second, 5*time.Millisecond, "hold %d", i)
	}
}
