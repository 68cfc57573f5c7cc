package leader_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// Go selectors and Java LeaderSelectors in one queue are listed alike on
// both sides.
func TestObserver_ParticipantsMatchCuratorsLeaderSelector(t *testing.T) {
	servers := zktest.Servers(t)
	curator := zktest.StartCurator(t, servers)
	c := zktest.Connect(t, servers)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	require.NoError(t, curator.LeaderSelectorStart(ctx, "java-1", path, "java-1"))
	leading, err := curator.LeaderSelectorAwait(ctx, "java-1", 10*time.Second)
	require.NoError(t, err)
	require.True(t, leading)
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	for i := 1; i <= 2; i++ {
		s := newSelector(t, c, path, func(ctx context.Context) error { <-ctx.Done(); return nil },
			leader.WithID(fmt.Sprintf("go-%d", i)))
		// Ends when runCtx ends.
		go func() { _ = s.Run(runCtx) }()
		require.Eventually(t, func() bool { return len(zktest.Children(t, c, path)) == 2*i },
			10*time.Second, 10*time.Millisecond, "go-%d queues", i)
		if i == 1 {
			require.NoError(t, curator.LeaderSelectorStart(ctx, "java-2", path, "java-2"))
			require.Eventually(t, func() bool { return len(zktest.Children(t, c, path)) == 3 },
				10*time.Second, 10*time.Millisecond, "java-2 queues")
		}
	}
	got, err := newObserver(t, c, path, leader.ObserveSelector()).Participants(ctx)
	require.NoError(t, err)
	want, err := curator.LeaderSelectorParticipants(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, want, asCurator(got))
	assert.Equal(t, []string{"java-1", "go-1", "java-2", "go-2"}, []string{got[0].ID, got[1].ID, got[2].ID, got[3].ID})
}

// A Curator LeaderSelector and a Go Selector on one path take turns and
// never lead at once.
func TestSelector_TakesTurnsWithCuratorsLeaderSelector(t *testing.T) {
	const rounds = 5
	servers := zktest.Servers(t)
	curator := zktest.StartCurator(t, servers)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	oc := zktest.Connect(t, servers)
	require.NoError(t, curator.LeaderSelectorStart(ctx, "java", path, "java"))
	leading, err := curator.LeaderSelectorAwait(ctx, "java", 10*time.Second)
	require.NoError(t, err)
	require.True(t, leading)

	var goActive atomic.Bool
	goLeads, goRelease := make(chan struct{}), make(chan struct{})
	s := newSelector(t, zktest.Connect(t, servers), path, func(ctx context.Context) error {
		goActive.Store(true)
		defer goActive.Store(false)
		javaLeads, err := curator.LeaderSelectorHas(ctx, "java")
		assert.NoError(t, err)
		assert.False(t, javaLeads, "Go leads while Java does")
		goLeads <- struct{}{}
		select {
		case <-goRelease:
		case <-ctx.Done():
		}
		return nil
	}, leader.WithID("go"), leader.WithAutoRequeue())
	runCtx, stop := context.WithCancel(ctx)
	run := make(chan error, 1)
	go func() { run <- s.Run(runCtx) }() // ends when runCtx ends
	for round := range rounds {
		require.Eventually(t, func() bool { return len(zktest.Children(t, oc, path)) == 2 },
			10*time.Second, 10*time.Millisecond, "round %d: Go queues behind Java", round)
		assert.False(t, goActive.Load(), "round %d: Go leads while Java does", round)
		require.NoError(t, curator.LeaderSelectorRelease(ctx, "java"))
		<-goLeads
		require.Eventually(t, func() bool { return len(zktest.Children(t, oc, path)) == 2 },
			10*time.Second, 10*time.Millisecond, "round %d: Java queues again behind Go", round)
		goRelease <- struct{}{}
		leading, err := curator.LeaderSelectorAwait(ctx, "java", 10*time.Second)
		require.NoError(t, err)
		require.True(t, leading, "round %d: Java leads again", round)
		assert.False(t, goActive.Load(), "round %d: Java leads while Go does", round)
	}
	stop()
	require.ErrorIs(t, <-run, context.Canceled)
}
