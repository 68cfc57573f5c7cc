package leader_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

func TestLatch_ReadsItsElectionAsItsObserverDoes(t *testing.T) {
	t.Parallel()
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	a := startLatch(t, c, path, leader.WithID("a"))
	term := await(t, a, 10*time.Second, "a")
	b := startLatch(t, c, path, leader.WithID("b"))
	require.Eventually(t, func() bool { return len(children(t, c, path)) == 2 }, 10*time.Second, 10*time.Millisecond)

	got, err := b.Leader(ctx)
	require.NoError(t, err)
	assert.Equal(t, leader.Participant{ID: "a", Node: term.Node(), Leader: true}, got)
	ps, err := b.Participants(ctx)
	require.NoError(t, err)
	require.Len(t, ps, 2)
	assert.Equal(t, []string{"a", "b"}, []string{ps[0].ID, ps[1].ID})
	assert.Equal(t, []bool{true, false}, []bool{ps[0].Leader, ps[1].Leader})

	octx, stop := context.WithCancel(ctx)
	defer stop()
	seen, err := b.Watch(octx)
	require.NoError(t, err)
	token, err := term.FencingToken(ctx)
	require.NoError(t, err)
	require.Eventually(t, func() bool { o := <-seen; return o.Leader.ID == "a" && o.FencingToken == token },
		10*time.Second, time.Millisecond, "b observes a")
	require.NoError(t, a.Close(ctx))
	require.Eventually(t, func() bool { return (<-seen).Leader.ID == "b" }, 10*time.Second, time.Millisecond, "b observes itself")
	require.NoError(t, b.Close(ctx))
	require.Eventually(t, func() bool { return !(<-seen).HasLeader() }, 10*time.Second, time.Millisecond, "no leader once both left")
	_, err = a.Leader(ctx)
	assert.ErrorIs(t, err, leader.ErrNoLeader)
}
