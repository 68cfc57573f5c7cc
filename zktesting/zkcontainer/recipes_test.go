package zkcontainer_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/zktesting/zkcontainer"
)

// connect returns a client of s with a short session, closed when the test
// ends.
func connect(ctx context.Context, t *testing.T, s *zkcontainer.Server) *framework.Client {
	t.Helper()
	c, err := framework.Connect(ctx, []string{s.Addr()}, framework.WithSessionTimeout(4*time.Second))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestServer_MutexHoldsAreExclusiveAndLostWhenTheServerStops(t *testing.T) {
	containers(t)
	s := zkcontainer.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, b := connect(ctx, t, s), connect(ctx, t, s)
	ma, err := mutex.New(a, "/zkcontainer/mutex")
	require.NoError(t, err)
	mb, err := mutex.New(b, "/zkcontainer/mutex")
	require.NoError(t, err)

	first, err := ma.Acquire(ctx)
	require.NoError(t, err)
	_, err = mb.AcquireTimeout(ctx, 0)
	require.ErrorIs(t, err, mutex.ErrNotAcquired, "b must not get a's lock")
	firstToken, err := first.FencingToken(ctx)
	require.NoError(t, err)
	require.NoError(t, first.Release(ctx))

	second, err := mb.AcquireTimeout(ctx, 10*time.Second)
	require.NoError(t, err, "b takes the lock once a released it")
	secondToken, err := second.FencingToken(ctx)
	require.NoError(t, err)
	assert.Greater(t, secondToken, firstToken, "fencing tokens grow across holders")

	// A stopped server cuts the connection: the hold is lost (by default a
	// suspended connection counts as loss), and after the restart the
	// lock is free again for a.
	require.NoError(t, s.Stop(ctx))
	select {
	case <-second.Lost():
		assert.ErrorIs(t, second.Err(), mutex.ErrLost)
	case <-ctx.Done():
		t.Fatal("the hold was not lost when the server stopped")
	}
	require.NoError(t, s.Restart(ctx))
	again, err := ma.AcquireTimeout(ctx, 30*time.Second)
	require.NoError(t, err, "a takes the lock after the restart")
	require.NoError(t, again.Release(ctx))
	_ = second.Release(ctx) // after loss: safe, and deletes nobody else's node
}

func TestServer_LeadershipPassesWhenTheLeaderLeaves(t *testing.T) {
	containers(t)
	s := zkcontainer.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	la, err := leader.NewLatch(connect(ctx, t, s), "/zkcontainer/leader", leader.WithID("a"))
	require.NoError(t, err)
	lb, err := leader.NewLatch(connect(ctx, t, s), "/zkcontainer/leader", leader.WithID("b"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = la.Close(context.Background()); _ = lb.Close(context.Background()) })

	require.NoError(t, la.Start(ctx))
	term, err := la.Await(ctx)
	require.NoError(t, err, "a, alone, leads")
	require.NoError(t, lb.Start(ctx))
	require.Eventually(t, func() bool {
		ps, err := lb.Participants(ctx)
		return err == nil && len(ps) == 2
	}, 10*time.Second, 20*time.Millisecond, "b joins the election")
	assert.False(t, lb.HasLeadership(), "b waits behind a")
	now, err := lb.Leader(ctx)
	require.NoError(t, err)
	assert.Equal(t, "a", now.ID)

	require.NoError(t, la.Close(ctx))
	<-term.Lost()
	next, err := lb.Await(ctx)
	require.NoError(t, err, "b leads once a left")
	assert.Equal(t, "b", next.ID())
}
