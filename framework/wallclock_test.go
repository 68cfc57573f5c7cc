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
func TestStates_WallClockStepsDecideNothing(t *testing.T) {
	t.Parallel()
	clk := framework.NewSteppingClock()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(shortSession), framework.WithClock(clk))
	states := recordStates(c)
	session := c.Session()
	require.NotNil(t, session)
	held := session.Interrupted(framework.SessionErrorPolicy)

	// Each window is a third of the session: pings renew the lease
	// several times between the first step and the last.
	for i, step := range []time.Duration{time.Hour, -time.Hour, -time.Hour, time.Hour, time.Hour, -time.Hour} {
		clk.Step(step)
		require.Never(t, func() bool { return len(states.changes) > 0 || isClosed(held) || session.LeaseRanOut() },
			shortSession/3, 20*time.Millisecond, "step %d (%v): a transition or the lease's end", i, step)
		deadline, ok := session.LeaseDeadline()
		require.True(t, ok)
		left := time.Until(deadline)
		assert.True(t, left > 0 && left <= c.SessionTimeout(), "step %d (%v): the lease runs %v more", i, step, left)
	}

	clk.Step(time.Hour)
	proxy.Pause()
	suspended := states.next(t, 10*time.Second)
	require.Equal(t, framework.Suspended, suspended.State)
	assert.WithinDuration(t, time.Now().Add(time.Hour), suspended.At, time.Minute, "At shows the wall clock")
	clk.Step(-2 * time.Hour)
	lost := states.next(t, 2*c.SessionTimeout())
	require.Equal(t, framework.Lost, lost.State, "Lost a session timeout after Suspended, the wall clock stepped back")
	assert.WithinDuration(t, time.Now().Add(-time.Hour), lost.At, time.Minute, "At shows the wall clock")
	proxy.Resume()
}
