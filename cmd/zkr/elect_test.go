package main

import (
	"context"
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
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// electArgs is `zkr elect --servers S [flags] PATH -- argv`.
func electArgs(servers, path string, flags []string, argv ...string) []string {
	args := append([]string{"elect", "--servers", servers}, flags...)
	return append(append(args, path, "--"), argv...)
}

// leaderArgv is a leader's COMMAND for gate g: it runs trap first, starts a
// background job, writes its own and the job's pids to g's "pids" and the
// fencing token to "started", and waits for "go". As it starts, it writes
// "overlap" if a process whose pid the other participant's COMMAND wrote
// into other/pids still runs: two terms at once.
func leaderArgv(g gate, other gate, trap string) []string {
	script := `for p in $(cat "$2/pids" 2>/dev/null); do ` +
		`s=$(cut -d')' -f2 "/proc/$p/stat" 2>/dev/null | cut -c2); ` +
		`if [ -n "$s" ] && [ "$s" != Z ]; then touch "$1/overlap"; fi; done; ` +
		trap + `; sleep 300 & echo "$$ $!" > "$1/pids.tmp"; mv "$1/pids.tmp" "$1/pids"; ` +
		`echo "$ZKR_FENCING_TOKEN" > "$1/started.tmp"; mv "$1/started.tmp" "$1/started"; ` +
		`while [ ! -e "$1/go" ]; do sleep 0.05; done; exit 0`
	return []string{"sh", "-c", script, "leader", g.dir, other.dir}
}

// killPids ends, at the end of the test, the processes whose pids g's
// COMMAND wrote.
func killPids(t *testing.T, g gate) {
	t.Cleanup(func() {
		b, _ := os.ReadFile(filepath.Join(g.dir, "pids"))
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}

// A rolling restart: SIGTERM to the leading zkr stops its COMMAND, and the
// next participant leads on the deletion of its node, not at the end of a
// 20 s session.
func TestElect_OneLeaderAtATimeAndSIGTERMHandsOff(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	c := client(t)
	ga, gb := newGate(t), newGate(t)
	killPids(t, ga)
	killPids(t, gb)
	flags := []string{"--session-timeout", "20s"}
	a := startZkr(t, nil, electArgs(zktest.Servers(t), path, append(flags, "--id", "a"), leaderArgv(ga, gb, `trap 'exit 0' TERM`)...)...)
	require.Eventually(t, ga.started, time.Minute, 20*time.Millisecond, "the first zkr never led: %s", a.stderr)
	b := startZkr(t, nil, electArgs(zktest.Servers(t), path, append(flags, "--id", "b"), leaderArgv(gb, ga, `trap 'exit 0' TERM`)...)...)
	require.Eventually(t, func() bool { return len(zktest.Children(t, c, path)) == 2 }, time.Minute, 20*time.Millisecond,
		"the second zkr never queued: %s", b.stderr)
	assert.False(t, gb.started(), "two leaders at once")

	a.signal(t, syscall.SIGTERM)
	// A functional bound: the session would keep the node for 20 s.
	require.Eventually(t, gb.started, 6*time.Second, 20*time.Millisecond,
		"the next participant did not lead well before the session timeout")
	assert.Equal(t, 0, a.wait(t, time.Minute), "zkr exits with COMMAND's status: %s", a.stderr)
	assert.False(t, gb.file("overlap"), "the second COMMAND started while the first one's group ran")
	assert.Greater(t, gb.token(t), "", "ZKR_FENCING_TOKEN is set")
	gb.open(t)
	assert.Equal(t, 0, b.wait(t, time.Minute), b.stderr.String())
	assert.Empty(t, zktest.Children(t, c, path), "both nodes are gone")
}

// A lost term stops COMMAND's whole group, which ignores SIGTERM, before
// the successor's COMMAND starts. Cut: the connection comes back in the
// same session, and zkr deletes the node only once the group is gone.
// Pause: the session expires on the server, and the group is gone before
// it can (--grace well within the session's lease).
func TestElect_LostTermStopsTheGroupBeforeTheSuccessorStarts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		flags []string
		fault func(p *zktest.Proxy)
	}{
		{"connection cut", []string{"--session-timeout", "20s", "--grace", "2s"}, (*zktest.Proxy).Cut},
		{"session expired", []string{"--session-timeout", "6s", "--grace", "500ms"}, (*zktest.Proxy).Pause},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := zktest.UniquePath(t)
			proxy := zktest.NewProxy(t, zktest.Servers(t))
			ga, gb := newGate(t), newGate(t)
			killPids(t, ga)
			killPids(t, gb)
			a := startZkr(t, nil, electArgs(proxy.Addr(), path, tc.flags, leaderArgv(ga, gb, `trap '' TERM`)...)...)
			require.Eventually(t, ga.started, time.Minute, 20*time.Millisecond, "the first zkr never led: %s", a.stderr)
			b := startZkr(t, nil, electArgs(zktest.Servers(t), path, tc.flags, leaderArgv(gb, ga, `trap '' TERM`)...)...)
			require.Eventually(t, func() bool { return len(zktest.Children(t, client(t), path)) == 2 }, time.Minute, 20*time.Millisecond,
				"the second zkr never queued: %s", b.stderr)

			tc.fault(proxy)
			require.Eventually(t, gb.started, time.Minute, 20*time.Millisecond, "the successor never led: %s", b.stderr)
			assert.False(t, gb.file("overlap"), "the successor started while the lost term's group ran")
			assert.Equal(t, exitLost, a.wait(t, time.Minute), a.stderr.String())
			assert.Contains(t, a.stderr.String(), "lost")
			proxy.Resume()
			gb.open(t)
			assert.Equal(t, 0, b.wait(t, time.Minute), b.stderr.String())
		})
	}
}

// With --requeue, zkr runs COMMAND again each time it leads, whatever its
// status, until a signal ends it.
func TestElect_RequeueRunsTheCommandAgain(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	dir := t.TempDir()
	script := `echo run >> "$1/runs"; if [ "$(wc -l < "$1/runs")" -ge 3 ]; then ` +
		`trap 'exit 0' TERM; touch "$1/third"; while :; do sleep 0.05; done; fi; exit 1`
	p := startZkr(t, nil, electArgs(zktest.Servers(t), path, []string{"--requeue"}, "sh", "-c", script, "requeue", dir)...)
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(dir, "third"))
		return err == nil
	}, time.Minute, 20*time.Millisecond, "COMMAND did not run a third time: %s", p.stderr)
	p.signal(t, syscall.SIGTERM)
	assert.Equal(t, 0, p.wait(t, time.Minute), "a signal ends zkr with COMMAND's status: %s", p.stderr)
	assert.Empty(t, zktest.Children(t, client(t), path))
}

// A signal while zkr waits to lead ends it with 128+N and takes its node
// out of the queue; a Go Observer names the leader by its --id.
func TestElect_InterruptedWhileWaitingLeavesNothing(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	c := client(t)
	g := newGate(t)
	p := startZkr(t, nil, electArgs(zktest.Servers(t), path, []string{"--id", "first"}, g.argv("exit 0")...)...)
	require.Eventually(t, g.started, time.Minute, 20*time.Millisecond, p.stderr.String())
	obs, err := leader.NewObserver(c, path)
	require.NoError(t, err)
	lead, err := obs.Leader(ctxOf(t))
	require.NoError(t, err)
	assert.Equal(t, "first", lead.ID, "the participant id is the node's data")
	for _, tc := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		w := startZkr(t, nil, electArgs(zktest.Servers(t), path, nil, "touch", filepath.Join(g.dir, "waiter"))...)
		require.Eventually(t, func() bool { return len(zktest.Children(t, c, path)) == 2 }, time.Minute, 20*time.Millisecond, w.stderr.String())
		w.signal(t, tc.sig)
		assert.Equal(t, tc.want, w.wait(t, time.Minute), "128+N for signal N: %s", w.stderr)
		assert.Eventually(t, func() bool { return len(zktest.Children(t, c, path)) == 1 }, time.Minute, 20*time.Millisecond,
			"the waiter's node is gone")
	}
	assert.False(t, g.file("waiter"), "an interrupted waiter ran COMMAND")
	g.open(t)
	assert.Equal(t, 0, p.wait(t, time.Minute), p.stderr.String())
}

func TestElect_TimeoutWhileAnotherLeads(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	g := newGate(t)
	p := startZkr(t, nil, electArgs(zktest.Servers(t), path, nil, g.argv("exit 0")...)...)
	require.Eventually(t, g.started, time.Minute, 20*time.Millisecond, p.stderr.String())
	code, _, stderr := runZkr(t, electArgs(zktest.Servers(t), path, []string{"--timeout", heldTimeout}, "touch", filepath.Join(g.dir, "second"))...)
	assert.Equal(t, exitNotAcquired, code, stderr)
	assert.Contains(t, stderr, "not acquired within "+heldTimeout)
	assert.False(t, g.file("second"), "a second COMMAND ran beside the leader's")
	assert.Len(t, zktest.Children(t, client(t), path), 1, "the timed-out participant left nothing")
	g.open(t)
	assert.Equal(t, 0, p.wait(t, time.Minute), p.stderr.String())
}

func TestElect_BadInputWritesNothing(t *testing.T) {
	t.Parallel()
	servers := zktest.Servers(t)
	path := zktest.UniquePath(t)
	for _, args := range [][]string{
		{"elect", "--servers", servers, path},
		{"elect", "--servers", servers, path, "--"},
		{"elect", "--servers", servers, path + "/", "--", "true"},
		{"elect", "--servers", servers, "relative", "--", "true"},
		{"elect", "--servers", servers, "--timeout", "0", path, "--", "true"},
		{"elect", "--servers", servers, "--id", "\xff", path, "--", "true"},
		{"elect", "--servers", servers, "--on-lost", "maybe", path, "--", "true"},
	} {
		code, stdout, stderr := runZkr(t, args...)
		assert.Equal(t, exitUsage, code, "%q: %s", args, stderr)
		assert.Empty(t, stdout, "%q", args)
		assert.True(t, strings.HasPrefix(stderr, "zkr: "), "%q: %s", args, stderr)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "%q: one line: %s", args, stderr)
	}
	ok, _, err := client(t).Exists(ctxOf(t), path)
	require.NoError(t, err)
	assert.False(t, ok, "bad input wrote to the server")
}

// zkr and a Go Selector on one path take turns: the Go participant's
// function runs only once zkr's COMMAND group is gone.
func TestElect_TakesTurnsWithAGoSelector(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	c := client(t)
	g := newGate(t)
	killPids(t, g)
	p := startZkr(t, nil, electArgs(zktest.Servers(t), path, nil, leaderArgv(g, newGate(t), `trap 'exit 0' TERM`)...)...)
	require.Eventually(t, g.started, time.Minute, 20*time.Millisecond, p.stderr.String())
	b, err := os.ReadFile(filepath.Join(g.dir, "pids"))
	require.NoError(t, err)
	pids := strings.Fields(string(b))
	require.Len(t, pids, 2)
	ran := make(chan bool, 1)
	sel, err := leader.NewSelector(c, path, func(context.Context) error {
		gone := true
		for _, f := range pids {
			pid, _ := strconv.Atoi(f)
			gone = gone && !alive(pid)
		}
		ran <- gone
		return nil
	}, leader.WithID("go"))
	require.NoError(t, err)
	// Ends when the function has run, or with the test's context.
	go func() { _ = sel.Run(ctxOf(t)) }()
	require.Eventually(t, func() bool { return len(zktest.Children(t, c, path)) == 2 }, time.Minute, 20*time.Millisecond)
	select {
	case <-ran:
		t.Fatal("the Go selector led while zkr led")
	default:
	}
	g.open(t)
	assert.Equal(t, 0, p.wait(t, time.Minute), p.stderr.String())
	select {
	case gone := <-ran:
		assert.True(t, gone, "the Go selector led while zkr's COMMAND group ran")
	case <-time.After(time.Minute):
		t.Fatal("the Go selector never led")
	}
}

// flagLine returns the line of `zkr CMD -h` that lists --name.
func flagLine(t *testing.T, cmd, name string) string {
	t.Helper()
	code, stdout, stderr := runZkr(t, cmd, "-h")
	require.Equal(t, 0, code, stderr)
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "  --"+name+" ") {
			return line
		}
	}
	t.Fatalf("zkr %s -h lists no --%s:\n%s", cmd, name, stdout)
	return ""
}

// elect refuses --timeout 0 (a selector has no single try), so its help
// must not offer it as the lock commands' help does.
func TestElect_HelpOffersNoSingleTry(t *testing.T) {
	t.Parallel()
	line := flagLine(t, "elect", "timeout")
	assert.NotContains(t, line, "one try", "elect refuses --timeout 0")
	assert.Contains(t, line, "first term", "--timeout bounds the first wait only")
	assert.Contains(t, flagLine(t, "lock", "timeout"), "0: one try", "the lock commands keep their single try")
}
