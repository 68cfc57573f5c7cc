package leader_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

func TestSelector_AStuckFunctionTurnsUnhealthyWithinMaxStale(t *testing.T) {
	t.Parallel()
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	s, unblock, run := stuckSelector(t, c, zktest.UniquePath(t), leader.WithStopTimeout(time.Minute))

	ran := run(ctx)
	require.NoError(t, s.Healthy(200*time.Millisecond), "a leader that runs as asked is healthy")
	st := s.Stats()
	assert.Equal(t, 1, st.Terms)
	assert.True(t, st.Leading)
	assert.Zero(t, st.LastTerm)
	assert.WithinDuration(t, time.Now(), st.Began, time.Minute)

	closed := make(chan error, 1)
	go func() { closed <- s.Close(ctx) }() // ends when the function returns
	require.Eventually(t, func() bool { return s.Healthy(200*time.Millisecond) != nil },
		5*time.Second, 10*time.Millisecond, "a function that ignores Close turns the selector unhealthy")
	assert.ErrorIs(t, s.Healthy(200*time.Millisecond), leader.ErrUnhealthy)

	close(unblock)
	require.NoError(t, <-closed)
	<-ran
	require.NoError(t, s.Healthy(200*time.Millisecond), "healthy again once the function returned")
	st = s.Stats()
	assert.Equal(t, 1, st.Terms)
	assert.False(t, st.Leading)
	assert.Greater(t, st.LastTerm, 200*time.Millisecond, "the term lasted until the function returned")
}

func TestLatch_StatsCountTermsAndTheLastOnesLength(t *testing.T) {
	t.Parallel()
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	l := startLatch(t, c, zktest.UniquePath(t))
	for range 3 {
		await(t, l, 10*time.Second, "the only latch")
		require.NoError(t, l.Healthy(0), "a latch that leads within its lease is healthy")
		require.NoError(t, l.Resign(ctx))
	}
	await(t, l, 10*time.Second, "the only latch")
	st := l.Stats()
	assert.Equal(t, 4, st.Terms)
	assert.True(t, st.Leading)
	assert.Positive(t, st.LastTerm)
}
