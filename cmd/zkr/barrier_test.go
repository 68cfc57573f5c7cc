package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/barrier"
)

// barrierArgs is `zkr barrier --servers S [flags] VERB PATH [-- argv]`.
func barrierArgs(t *testing.T, flags []string, verb, path string, argv ...string) []string {
	args := append(append([]string{"barrier", "--servers", zktest.Servers(t)}, flags...), verb, path)
	if argv == nil {
		return args
	}
	return append(append(args, "--"), argv...)
}

// A barrier set by zkr holds a waiter back (for --timeout, status 4) until
// zkr removes it.
func TestBarrier_WaitBlocksWhileSetAndReturnsOnceRemoved(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t) + "/gate"
	code, stdout, stderr := runZkr(t, barrierArgs(t, nil, "wait", path)...)
	assert.Equal(t, 0, code, "a barrier not set lets through: %s", stderr)
	assert.Empty(t, stdout)

	code, stdout, stderr = runZkr(t, barrierArgs(t, nil, "set", path)...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "barrier set: "+path+"\n", stdout)
	code, _, stderr = runZkr(t, barrierArgs(t, []string{"--timeout", "3s"}, "wait", path)...)
	assert.Equal(t, exitNotAcquired, code, stderr)
	assert.Contains(t, stderr, "--timeout (3s) ran out while the barrier stood")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)

	waiter := startZkr(t, nil, barrierArgs(t, nil, "wait", path)...)
	code, stdout, stderr = runZkr(t, barrierArgs(t, nil, "remove", path)...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "barrier removed: "+path+"\n", stdout)
	assert.Equal(t, 0, waiter.wait(t, time.Minute), waiter.stderr.String())
	code, _, stderr = runZkr(t, barrierArgs(t, nil, "remove", path)...)
	assert.Equal(t, 0, code, "removing a barrier not set is no error: %s", stderr)
}

// Two zkr members and a Go member of a double barrier of three: COMMAND
// starts only once all three are in, and each zkr exits with its COMMAND's
// status only once every member has left; nothing is left at the path.
func TestBarrier_EnterRunsCommandOnceAllAreInAndLeavesWithThem(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	ctx := ctxOf(t)
	g1, g2 := newGate(t), newGate(t)
	script := `echo "$ZKR_MEMBER_NODE" > "$1/node"; touch "$1/done"; exit `
	p1 := startZkr(t, nil, barrierArgs(t, []string{"--members", "3"}, "enter", path, g1.argv(script+"0")...)...)
	p2 := startZkr(t, nil, barrierArgs(t, []string{"--members", "3"}, "enter", path, g2.argv(script+"3")...)...)
	require.Eventually(t, func() bool { return len(zktest.Children(t, client(t), path)) == 2 }, time.Minute, 20*time.Millisecond)
	assert.Never(t, func() bool { return g1.started() || g2.started() }, 500*time.Millisecond, 20*time.Millisecond,
		"a COMMAND started with two members of three in")

	d, err := barrier.NewDouble(client(t), path, 3)
	require.NoError(t, err)
	m, err := d.Enter(ctx)
	require.NoError(t, err, "the third member opens the barrier")
	require.Eventually(t, func() bool { return g1.started() && g2.started() }, time.Minute, 20*time.Millisecond)

	g1.open(t)
	require.Eventually(t, func() bool { return g1.file("done") }, time.Minute, 20*time.Millisecond)
	node, err := os.ReadFile(filepath.Join(g1.dir, "node"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(node), path+"/"), "ZKR_MEMBER_NODE is the member's node: %s", node)
	assert.Never(t, func() bool { return !p1.running() }, 500*time.Millisecond, 20*time.Millisecond,
		"zkr left before the other members")
	left := make(chan error, 1)
	go func() { left <- m.Leave(context.Background()) }() // ends once every member has left
	g2.open(t)
	assert.Equal(t, 0, p1.wait(t, time.Minute), p1.stderr.String())
	assert.Equal(t, 3, p2.wait(t, time.Minute), "zkr exits with its COMMAND's status: %s", p2.stderr.String())
	assert.NoError(t, <-left)
	assert.Empty(t, zktest.Children(t, client(t), path), "no member node, no ready node")
}

func TestBarrier_EnterTimesOutWithStatus4AndLeavesNothing(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	code, stdout, stderr := runZkr(t, barrierArgs(t, []string{"--members", "2", "--timeout", "3s"}, "enter", path, "true")...)
	assert.Equal(t, exitNotAcquired, code, stderr)
	assert.Empty(t, stdout, "COMMAND never ran")
	assert.Contains(t, stderr, "--timeout (3s) ran out before 2 members were in")
	assert.Empty(t, zktest.Children(t, client(t), path), "the member's node is deleted")
}

func TestBarrier_BadInputIsAUsageError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"barrier", "wait"}, "takes 2 argument"},
		{[]string{"barrier", "open", "/b"}, "set, remove, wait or enter"},
		{[]string{"barrier", "enter", "/b", "--", "true"}, "--members N"},
		{[]string{"barrier", "--members", "0", "enter", "/b", "--", "true"}, "--members N"},
		{[]string{"barrier", "--members", "2", "enter", "/b"}, "needs -- COMMAND"},
		{[]string{"barrier", "--members", "2", "enter", "/b", "--"}, "needs -- COMMAND"},
		{[]string{"barrier", "--members", "2", "enter", "/b", "true"}, "put -- before COMMAND"},
		{[]string{"barrier", "--members", "2", "wait", "/b"}, "--members is for enter"},
		{[]string{"barrier", "wait", "/b", "--", "true"}, "runs no COMMAND"},
		{[]string{"barrier", "--timeout", "0s", "wait", "/b"}, "positive"},
		{[]string{"barrier", "--timeout", "1s", "set", "/b"}, "for wait and enter"},
		{[]string{"barrier", "set", "/b/"}, "must not end with '/'"},
		{[]string{"barrier", "--members", "2", "enter", "/", "--", "true"}, "invalid argument"},
		{[]string{"barrier", "--members", "2", "--on-lost", "maybe", "enter", "/b", "--", "true"}, "--on-lost"},
	} {
		usageFails(t, tc.args, tc.says)
	}
}
