package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// zkr elect and a Curator 5.4 LeaderSelector (auto-requeued) on one path
// take turns and never lead at once, over rounds in both directions: Java
// leads, is released (closed in the last round) and zkr's COMMAND starts;
// then COMMAND exits (even rounds) or zkr gets SIGTERM (odd rounds) and
// Java leads again. Each check runs inside one side's term, which the
// test keeps open: zkr's COMMAND waits for its gate, Java's
// takeLeadership for its release. zkr inspect names either leader the
// same way, as Curator's getParticipants does.
func TestElect_TakesTurnsWithCuratorsLeaderSelector(t *testing.T) {
	t.Parallel()
	const rounds = 4
	servers := zktest.Servers(t)
	curator := zktest.StartCurator(t, servers)
	ctx := ctxOf(t)
	path := zktest.UniquePath(t)
	c := client(t)
	queued := func() bool { return len(zktest.Children(t, c, path)) == 2 }
	require.NoError(t, curator.LeaderSelectorStart(ctx, "java", path, "java"))
	leading, err := curator.LeaderSelectorAwait(ctx, "java", time.Minute)
	require.NoError(t, err)
	require.True(t, leading, "Java leads first")
	for round := range rounds {
		last := round == rounds-1
		// Java's term: zkr queues behind it and its COMMAND does not start.
		g := newGate(t)
		killPids(t, g)
		z := startZkr(t, nil, electArgs(servers, path, []string{"--id", "zkr"}, leaderArgv(g, newGate(t), `trap 'exit 0' TERM`)...)...)
		require.Eventually(t, func() bool { return queued() || g.started() }, time.Minute, 20*time.Millisecond,
			"round %d: zkr never queued: %s", round, z.stderr)
		assert.False(t, g.started(), "round %d: zkr's COMMAND started while Java led", round)
		assertElectionLeader(t, curator, path, "java", "zkr")
		javaLeads, err := curator.LeaderSelectorHas(ctx, "java")
		require.NoError(t, err)
		require.True(t, javaLeads, "round %d: Java's term ended before its release", round)
		assert.False(t, g.started(), "round %d: zkr's COMMAND started while Java led", round)

		// Java hands over; zkr's term: Java queues again behind it and does
		// not lead.
		if last {
			require.NoError(t, curator.LeaderSelectorClose(ctx, "java"))
		} else {
			require.NoError(t, curator.LeaderSelectorRelease(ctx, "java"))
		}
		require.Eventually(t, g.started, time.Minute, 20*time.Millisecond, "round %d: zkr never led: %s", round, z.stderr)
		pids := commandPids(t, g)
		if last {
			assertElectionLeader(t, curator, path, "zkr")
		} else {
			javaLeads := func() bool {
				leads, err := curator.LeaderSelectorHas(ctx, "java")
				assert.NoError(t, err)
				return leads
			}
			require.Eventually(t, func() bool { return queued() || javaLeads() }, time.Minute, 20*time.Millisecond,
				"round %d: Java never queued again", round)
			assert.False(t, javaLeads(), "round %d: Java leads while zkr's COMMAND runs", round)
			assertElectionLeader(t, curator, path, "zkr", "java")
		}
		for _, pid := range pids {
			require.True(t, alive(pid), "round %d: zkr's term ended before the test ended it", round)
		}

		// zkr hands over: its COMMAND exits, or zkr is told to stop.
		if round%2 == 0 {
			g.open(t)
		} else {
			z.signal(t, syscall.SIGTERM)
		}
		if !last {
			leading, err := curator.LeaderSelectorAwait(ctx, "java", time.Minute)
			require.NoError(t, err)
			require.True(t, leading, "round %d: Java never led again: %s", round, z.stderr)
			for _, pid := range pids {
				assert.False(t, alive(pid), "round %d: Java leads while zkr's COMMAND group runs", round)
			}
		}
		assert.Equal(t, 0, z.wait(t, time.Minute), "round %d: zkr exits with COMMAND's status: %s", round, z.stderr)
	}
	assert.Empty(t, zktest.Children(t, c, path), "both sides left the election")
}

// assertElectionLeader checks that zkr inspect and Curator's
// getParticipants both name the leader of the selector election at path,
// and its waiters, by the participant ids leaderID and waiterIDs, and
// that inspect shows a Java and a zkr leader alike (an election's leader).
func assertElectionLeader(t *testing.T, curator *zktest.Curator, path, leaderID string, waiterIDs ...string) {
	t.Helper()
	r := inspectJSON(t, path)
	assert.Equal(t, "election", r.Recipe, "a selector's election, told by its participant ids")
	if assert.Len(t, r.Holders, 1) {
		assert.Equal(t, leaderID, r.Holders[0].Data, "inspect names the leader by its id")
		assert.Equal(t, "leader", r.Holders[0].Role)
		assert.Equal(t, "lock", r.Holders[0].Kind)
	}
	var waiters []string
	for _, n := range r.Waiters {
		waiters = append(waiters, n.Data)
	}
	assert.Equal(t, waiterIDs, waiters, "inspect names the waiters by their ids")
	ps, err := curator.LeaderSelectorParticipants(ctxOf(t), path)
	require.NoError(t, err)
	want := []zktest.CuratorParticipant{{ID: leaderID, Leader: true}}
	for _, id := range waiterIDs {
		want = append(want, zktest.CuratorParticipant{ID: id})
	}
	assert.Equal(t, want, ps, "Curator's getParticipants agrees")
}

// commandPids returns the pids leaderArgv's COMMAND wrote for gate g: its
// shell's and its background job's.
func commandPids(t *testing.T, g gate) []int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(g.dir, "pids"))
	require.NoError(t, err)
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		require.NoError(t, err)
		pids = append(pids, pid)
	}
	require.Len(t, pids, 2)
	return pids
}
