package leader_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// wallSession is short, so that the session lease is renewed several
// times while the wall clock steps.
const wallSession = 2 * time.Second

// wallSteps step the wall clock an hour at a time, both ways, and leave
// it an hour back: +1 h, 0, −1 h, 0, −1 h.
var wallSteps = []time.Duration{time.Hour, -time.Hour, -time.Hour, time.Hour, -time.Hour}

// ended reports whether a term's Lost channel is closed.
func ended(lead *leader.Leadership) bool {
	select {
	case <-lead.Lost():
		return true
	default:
		return false
	}
}

// Only monotonic clocks decide a term: a latch that leads under the
// session lease while its clock's wall reading steps an hour either way
// keeps its term and stays healthy, and the length of the term it reports
// is the one the monotonic clock measured.
func TestLatch_WallClockStepsEndNoTermAndLeaveItHealthy(t *testing.T) {
	t.Parallel()
	clk := leader.NewSteppingClock()
	c := connect(t, zktest.Servers(t), framework.WithSessionTimeout(wallSession))
	ctx := testContext(t)
	start := time.Now()
	l := startLatch(t, c, zktest.UniquePath(t), leader.WithErrorPolicy(framework.SessionErrorPolicy), leader.WithClock(clk))
	lead := await(t, l, 10*time.Second, "the only latch")
	granted := time.Now()
	assert.WithinDuration(t, granted, l.Stats().Began, time.Minute, "Began shows the wall clock")

	for i, step := range wallSteps {
		clk.Step(step)
		// A third of the session: the lease is renewed between steps.
		require.Never(t, func() bool { return ended(lead) || l.Healthy(100*time.Millisecond) != nil },
			wallSession/3, 20*time.Millisecond, "step %d (%v): the term ended or turned unhealthy", i, step)
	}
	require.NoError(t, l.Healthy(100*time.Millisecond))
	assert.True(t, l.HasLeadership())
	assert.NoError(t, lead.Err())

	closing := time.Now()
	require.NoError(t, l.Close(ctx))
	closed := time.Now()
	st := l.Stats()
	assert.Equal(t, 1, st.Terms)
	assert.False(t, st.Leading)
	assert.True(t, st.Began.IsZero(), "no term under way")
	assert.GreaterOrEqual(t, st.LastTerm, closing.Sub(granted), "the term lasted at least from Await's return to Close")
	assert.LessOrEqual(t, st.LastTerm, closed.Sub(start), "the term lasted at most from Start to Close's return")
}

// A selector whose function was asked to stop a moment ago is healthy
// for maxStale, wherever the wall clock steps meanwhile; the length of the
// term is the monotonic one.
func TestSelector_WallClockStepsLeaveAStoppingFunctionHealthy(t *testing.T) {
	t.Parallel()
	clk := leader.NewSteppingClock()
	c := connect(t, zktest.Servers(t), framework.WithSessionTimeout(wallSession))
	ctx := testContext(t)
	s, unblock, run := stuckSelector(t, c, zktest.UniquePath(t), leader.WithErrorPolicy(framework.SessionErrorPolicy),
		leader.WithStopTimeout(time.Minute), leader.WithClock(clk))

	start := time.Now()
	ran := run(ctx)
	release := sync.OnceFunc(func() { close(unblock) })
	// Runs before the selector's Close, should the test fail first.
	t.Cleanup(release)
	entering := time.Now()
	for i, step := range wallSteps[:3] {
		clk.Step(step)
		require.Never(t, func() bool { return s.Healthy(100*time.Millisecond) != nil },
			wallSession/3, 20*time.Millisecond, "step %d (%v): a leading selector turned unhealthy", i, step)
	}

	closed := make(chan error, 1)
	go func() { closed <- s.Close(ctx) }() // ends when the function returns
	require.Eventually(t, func() bool { return s.Healthy(0) != nil }, 10*time.Second, time.Millisecond,
		"the function was asked to stop")
	for i, step := range wallSteps[3:] {
		clk.Step(step)
		require.NoError(t, s.Healthy(time.Minute), "step %d (%v): asked to stop less than a minute ago", i+3, step)
	}

	unblocking := time.Now()
	release()
	require.NoError(t, <-closed)
	require.ErrorIs(t, <-ran, leader.ErrClosed)
	returned := time.Now()
	st := s.Stats()
	assert.Equal(t, 1, st.Terms)
	assert.False(t, st.Leading)
	assert.GreaterOrEqual(t, st.LastTerm, unblocking.Sub(entering), "the term lasted at least while the function ran")
	assert.LessOrEqual(t, st.LastTerm, returned.Sub(start), "the term lasted at most from Run to its return")
}
