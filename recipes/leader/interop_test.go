package leader_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// A Curator 5.4 LeaderLatch and a Go latch on one path, either joining
// first: exactly one leads, and closing the leader hands leadership to the
// other side.
func TestInterop_GoAndCuratorLatchesShareOneElection(t *testing.T) {
	curator := zktest.StartCurator(t, zktest.Servers(t))
	for _, javaFirst := range []bool{true, false} {
		name := "go first"
		if javaFirst {
			name = "curator first"
		}
		t.Run(name, func(t *testing.T) {
			ctx := testContext(t)
			c := connect(t, zktest.Servers(t))
			p := zktest.UniquePath(t)
			handle := "latch-" + name[:2]
			var golatch *leader.Latch
			if javaFirst {
				require.NoError(t, curator.LatchStart(ctx, handle, p, "java-1"))
				ok, err := curator.LatchAwait(ctx, handle, 10*time.Second)
				require.NoError(t, err)
				require.True(t, ok, "the Curator latch leads alone")
				golatch = startLatch(t, c, p, leader.WithID("go-1"))
			} else {
				golatch = startLatch(t, c, p, leader.WithID("go-1"))
				await(t, golatch, 10*time.Second, "the Go latch alone")
				require.NoError(t, curator.LatchStart(ctx, handle, p, "java-1"))
			}
			require.Eventually(t, func() bool { return len(children(t, c, p)) == 2 }, 10*time.Second, 5*time.Millisecond)
			assert.Equal(t, map[bool][]string{true: {"java-1", "go-1"}, false: {"go-1", "java-1"}}[javaFirst], queueIDs(t, c, p),
				"the Java node carries Curator's name and id")
			for _, name := range children(t, c, p) {
				assert.Regexp(t, latchNode, name)
			}

			javaLeads, err := curator.LatchAwait(ctx, handle, 300*time.Millisecond)
			require.NoError(t, err)
			assert.Equal(t, javaFirst, javaLeads, "Curator agrees on the leader")
			assert.Equal(t, !javaFirst, golatch.HasLeadership(), "Go agrees on the leader")

			if javaFirst {
				require.NoError(t, curator.LatchClose(ctx, handle))
				lead := await(t, golatch, 10*time.Second, "the Go latch after Curator's closed")
				assert.Equal(t, "go-1", lead.ID())
				return
			}
			require.NoError(t, golatch.Close(ctx))
			ok, err := curator.LatchAwait(ctx, handle, 10*time.Second)
			require.NoError(t, err)
			assert.True(t, ok, "the Curator latch leads after Go's closed")
			require.NoError(t, curator.LatchClose(ctx, handle))
		})
	}
}

// Go, Curator, Go in one queue: leadership passes in sequence order across
// the sides, and at each step both sides name the same leader.
func TestInterop_MixedQueueLeadsInSequenceOrder(t *testing.T) {
	curator := zktest.StartCurator(t, zktest.Servers(t))
	ctx := testContext(t)
	c := connect(t, zktest.Servers(t))
	p := zktest.UniquePath(t)
	first := startLatch(t, connect(t, zktest.Servers(t)), p, leader.WithID("go-1"))
	await(t, first, 10*time.Second, "go-1")
	require.NoError(t, curator.LatchStart(ctx, "mixed", p, "java-1"))
	require.Eventually(t, func() bool { return len(children(t, c, p)) == 2 }, 10*time.Second, 5*time.Millisecond)
	third := startLatch(t, connect(t, zktest.Servers(t)), p, leader.WithID("go-2"))
	require.Eventually(t, func() bool { return len(children(t, c, p)) == 3 }, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, []string{"go-1", "java-1", "go-2"}, queueIDs(t, c, p))

	javaLeads, err := curator.LatchHasLeadership(ctx, "mixed")
	require.NoError(t, err)
	assert.False(t, javaLeads)
	require.NoError(t, first.Close(ctx))
	ok, err := curator.LatchAwait(ctx, "mixed", 10*time.Second)
	require.NoError(t, err)
	require.True(t, ok, "Curator's latch is next in line")
	notLeading(t, third, 200*time.Millisecond, "go-2 behind the Curator leader")
	require.NoError(t, curator.LatchClose(ctx, "mixed"))
	lead := await(t, third, 10*time.Second, "go-2 after Curator's latch closed")
	assert.Equal(t, "go-2", lead.ID())
}
