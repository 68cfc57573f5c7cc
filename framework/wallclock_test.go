package framework_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// Only the monotonic clock decides a session's fate: steps of the wall
// clock, an hour either way, neither end the lease of a connected session
// nor lengthen it, and a session suspended while the wall clock steps
// back is still Lost a session timeout after Suspended. The wall clock
// only shows in StateChange.At.
//
// A step moves the wall clock by an hour; a loaded machine stalls a
// process for a second or two, and then the lease of a short session
// rightly runs out (no reply proves the session alive), or go-zookeeper's
// read timeout suspends it. So the test tells the two apart by their
// scale, not by asking a short session to outlive the stalls.
func TestStates_WallClockStepsDecideNothing(t *testing.T) {
	t.Parallel()
	t.Run("connected", testWallStepsWhileConnected)
	t.Run("suspended", testWallStepBackWhileSuspended)
}

// steadySession is the session of a client that must stay connected
// through the steps: far longer than a stall of a loaded machine (over a
// second measured with chaos runs beside), far shorter than a step.
const steadySession = 20 * time.Second

// After each step, a request renews the lease: its deadline follows the
// request's send instant on the monotonic clock, neither an hour short
// (the step ended the lease) nor an hour long (the step lengthened it).
func testWallStepsWhileConnected(t *testing.T) {
	t.Parallel()
	clk := framework.NewSteppingClock()
	c := connect(t, zktest.Servers(t), framework.WithSessionTimeout(steadySession), framework.WithClock(clk))
	ctx := testContext(t)
	states := recordStates(c)
	session := c.Session()
	require.NotNil(t, session)
	held := session.Interrupted(framework.SessionErrorPolicy)

	for i, step := range []time.Duration{time.Hour, -time.Hour, -time.Hour, time.Hour, time.Hour, -time.Hour} {
		clk.Step(step)
		sent := time.Now()
		require.NoError(t, c.Sync(ctx, "/"))
		deadline, ok := session.LeaseDeadline()
		require.True(t, ok)
		assert.True(t, deadline.After(sent), "step %d (%v): the lease ends %v before the renewing request was sent", i, step, sent.Sub(deadline))
		assert.False(t, deadline.After(time.Now().Add(c.SessionTimeout())), "step %d (%v): the lease runs %v more", i, step, time.Until(deadline))
		assert.False(t, session.LeaseRanOut(), "step %d (%v): the lease ran out", i, step)
		assert.False(t, isClosed(held), "step %d (%v): the session's holds ended", i, step)
		assert.Empty(t, states.changes, "step %d (%v): a transition", i, step)
	}
}

// A suspended session whose wall clock steps back two hours is Lost a
// session timeout after Suspended, not two hours later. The step must
// land between the two, which the test, woken by Suspended, does unless
// the machine stalls it for the session timeout; Lost's At, which shows
// the wall clock in force, tells whether it did, and a round whose step
// missed says nothing and runs again.
func testWallStepBackWhileSuspended(t *testing.T) {
	t.Parallel()
	for round := 1; round <= 3; round++ {
		if suspendThenStepBack(t) {
			return
		}
		t.Logf("round %d: the step back came after Lost; again", round)
	}
	t.Fatal("no round stepped the wall clock back between Suspended and Lost")
}

// suspendThenStepBack runs one round of testWallStepBackWhileSuspended
// and reports whether its step landed between Suspended and Lost.
func suspendThenStepBack(t *testing.T) (stepped bool) {
	clk := framework.NewSteppingClock()
	clk.Step(time.Hour)
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(shortSession), framework.WithClock(clk))
	states := recordStates(c)
	proxy.Pause()
	defer proxy.Resume()

	suspended := states.next(t, 10*time.Second)
	require.Equal(t, framework.Suspended, suspended.State)
	assert.WithinDuration(t, time.Now().Add(time.Hour), suspended.At, time.Minute, "At shows the wall clock")
	clk.Step(-2 * time.Hour)
	// Lost a session timeout after Suspended; a wall clock that decided
	// would make it two hours.
	lost := states.next(t, 5*c.SessionTimeout())
	require.Equal(t, framework.Lost, lost.State, "Lost a session timeout after Suspended, the wall clock stepped back")
	if lost.At.After(time.Now().Add(30 * time.Minute)) {
		return false // Lost came before the step
	}
	assert.WithinDuration(t, time.Now().Add(-time.Hour), lost.At, time.Minute, "At shows the wall clock")
	return true
}
