package main

import (
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

func TestLock_StopsTheWholeCommandGroup(t *testing.T) {
	t.Parallel()
	c := client(t)
	for _, tc := range []struct {
		name  string
		after string // what the command does once its background job runs
		lose  bool   // an operator deletes the lock node
		want  int
	}{
		// sh waits for its background job; SIGTERM to sh alone left it.
		{"hold lost", `wait`, true, exitLost},
		// COMMAND exits and leaves its job running without the lock.
		{"command exits", `exit 0`, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := zktest.UniquePath(t)
			g := newGate(t)
			script := `sleep 31 & echo $! > "$1/bg"; touch "$1/started"; while [ ! -e "$1/go" ]; do sleep 0.05; done; ` + tc.after
			p := startZkr(t, nil, lockArgs(t, path, []string{"--grace", "5s"}, "sh", "-c", script, "gate", g.dir)...)
			require.Eventually(t, g.started, time.Minute, 20*time.Millisecond)
			bg := g.pid(t, "bg")
			t.Cleanup(func() { _ = syscall.Kill(bg, syscall.SIGKILL) })
			if tc.lose {
				nodes := zktest.Children(t, c, path)
				require.Len(t, nodes, 1)
				require.NoError(t, c.Delete(ctxOf(t), path+"/"+nodes[0], -1))
			} else {
				g.open(t)
			}
			assert.Equal(t, tc.want, p.wait(t, time.Minute), p.stderr.String())
			assert.False(t, alive(bg), "COMMAND's background job outlived the hold")
		})
	}
}

func TestLock_SessionErrorPolicyRidesOutADisconnect(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	start := func(policy string) (*zkrProcess, gate) {
		g := newGate(t)
		args := append([]string{"lock", "--servers", proxy.Addr(), "--error-policy", policy, zktest.UniquePath(t) + "-" + policy, "--"}, g.argv("exit 0")...)
		p := startZkr(t, nil, args...)
		require.Eventually(t, g.started, time.Minute, 20*time.Millisecond, p.stderr.String())
		return p, g
	}
	standard, _ := start("standard")
	session, g := start("session")
	proxy.Cut()
	assert.Equal(t, exitLost, standard.wait(t, time.Minute), "the default policy counts the disconnect as loss")
	assert.True(t, session.running(), "--error-policy session keeps the hold")
	g.open(t)
	assert.Equal(t, 0, session.wait(t, time.Minute), session.stderr.String())
	assert.Empty(t, session.stderr.String())
}

func TestLock_AStoppedCommandIsStoppedOnLoss(t *testing.T) {
	t.Parallel()
	c := client(t)
	path := zktest.UniquePath(t)
	g := newGate(t)
	// COMMAND stops itself, as one that reads a terminal from a background
	// group does (SIGTTIN); a pending SIGTERM would wait for SIGCONT.
	script := `echo $$ > "$1/pid"; touch "$1/started"; kill -STOP $$; exit 0`
	p := startZkr(t, nil, lockArgs(t, path, []string{"--grace", "1h"}, "sh", "-c", script, "gate", g.dir)...)
	require.Eventually(t, g.started, time.Minute, 20*time.Millisecond)
	pid := g.pid(t, "pid")
	require.Eventually(t, func() bool { return procState(pid) == 'T' }, time.Minute, 20*time.Millisecond, "COMMAND stopped itself")
	nodes := zktest.Children(t, c, path)
	require.Len(t, nodes, 1)
	require.NoError(t, c.Delete(ctxOf(t), path+"/"+nodes[0], -1))
	assert.Equal(t, exitLost, p.wait(t, time.Minute), p.stderr.String())
}
