package main

import (
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

// lockArgs is `zkr lock --servers S [flags] PATH -- argv`.
func lockArgs(t *testing.T, path string, flags []string, argv ...string) []string {
	args := append([]string{"lock", "--servers", zktest.Servers(t)}, flags...)
	return append(append(args, path, "--"), argv...)
}

func TestLock_ExcludesAnotherZkrAndAGoMutex(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	g := newGate(t)
	first := startZkr(t, nil, lockArgs(t, path, nil, g.argv("exit 0")...)...)
	require.Eventually(t, g.started, time.Minute, 20*time.Millisecond, "the first zkr never ran its command")
	token, err := strconv.ParseInt(g.token(t), 10, 64)
	require.NoError(t, err, "ZKR_FENCING_TOKEN is a number")
	assert.Positive(t, token)

	code, _, stderr := runZkr(t, lockArgs(t, path, []string{"--timeout", heldTimeout}, "true")...)
	assert.Equal(t, exitNotAcquired, code, stderr)
	m, err := mutex.New(client(t), path)
	require.NoError(t, err)
	_, err = m.TryAcquire(ctxOf(t))
	require.ErrorIs(t, err, mutex.ErrNotAcquired, "a Go mutex got the lock zkr holds")

	g.open(t)
	assert.Equal(t, 0, first.wait(t, time.Minute), first.stderr.String())
	hold, err := m.AcquireTimeout(ctxOf(t), 30*time.Second)
	require.NoError(t, err, "zkr released the lock when its command ended")
	code, _, stderr = runZkr(t, lockArgs(t, path, []string{"--timeout", heldTimeout}, "true")...)
	assert.Equal(t, exitNotAcquired, code, "zkr got a lock a Go mutex holds: %s", stderr)
	require.NoError(t, hold.Release(ctxOf(t)))
}

func TestLock_CuratorAndZkrExcludeEachOther(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	c := zktest.StartCurator(t, zktest.Servers(t))
	ok, err := c.MutexAcquire(ctxOf(t), "a", path, -1)
	require.NoError(t, err)
	require.True(t, ok)
	code, _, stderr := runZkr(t, lockArgs(t, path, []string{"--timeout", heldTimeout}, "true")...)
	assert.Equal(t, exitNotAcquired, code, "zkr got a lock Curator holds: %s", stderr)
	require.NoError(t, c.MutexRelease(ctxOf(t), "a"))

	g := newGate(t)
	p := startZkr(t, nil, lockArgs(t, path, nil, g.argv("exit 0")...)...)
	require.Eventually(t, g.started, time.Minute, 20*time.Millisecond)
	ok, err = c.MutexAcquire(ctxOf(t), "a", path, 300*time.Millisecond)
	require.NoError(t, err)
	assert.False(t, ok, "Curator got a lock zkr holds")
	g.open(t)
	assert.Equal(t, 0, p.wait(t, time.Minute))
	ok, err = c.MutexAcquire(ctxOf(t), "a", path, 30*time.Second)
	require.NoError(t, err)
	assert.True(t, ok, "Curator gets the lock once zkr has released it")
	require.NoError(t, c.MutexRelease(ctxOf(t), "a"))
}

func TestLock_ExitsWithTheCommandsStatus(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	code, _, stderr := runZkr(t, lockArgs(t, path, nil, "sh", "-c", "exit 7")...)
	assert.Equal(t, 7, code, stderr)
	assert.Empty(t, stderr, "a command's own status needs no message")
	code, _, _ = runZkr(t, lockArgs(t, path, nil, "sh", "-c", "kill -KILL $$")...)
	assert.Equal(t, 128+int(syscall.SIGKILL), code)
	code, _, stderr = runZkr(t, lockArgs(t, path, nil, "/no/such/command")...)
	assert.Equal(t, exitNoCommand, code, stderr)
	assert.Empty(t, zktest.Children(t, client(t), path), "every run released the lock")
}

func TestLock_LostHoldStopsTheCommand(t *testing.T) {
	t.Parallel()
	c := client(t)
	for _, tc := range []struct {
		name  string
		flags []string
		after string // the child's script once let go
		want  int
	}{
		// The child ignores SIGTERM and is let go never: only SIGKILL ends it.
		{"term then kill", []string{"--grace", "200ms"}, "", exitLost},
		{"ignore", []string{"--on-lost", "ignore"}, "exit 3", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := zktest.UniquePath(t)
			g := newGate(t)
			argv := g.argv(tc.after)
			argv[2] = "trap '' TERM; " + argv[2]
			p := startZkr(t, nil, lockArgs(t, path, tc.flags, argv...)...)
			require.Eventually(t, g.started, time.Minute, 20*time.Millisecond)
			nodes := zktest.Children(t, c, path)
			require.Len(t, nodes, 1)
			require.NoError(t, c.Delete(ctxOf(t), path+"/"+nodes[0], -1), "an operator deletes the lock node")
			if tc.after != "" {
				require.Eventually(t, func() bool { return p.stderr.String() != "" }, time.Minute, 20*time.Millisecond)
				assert.True(t, p.running(), "--on-lost=ignore lets the command run")
				g.open(t)
			}
			assert.Equal(t, tc.want, p.wait(t, time.Minute), p.stderr.String())
			assert.Contains(t, p.stderr.String(), "lost")
		})
	}
}

func TestLock_ForwardsSignalsToTheCommand(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	g := newGate(t)
	argv := g.argv("")
	argv[2] = `trap 'touch "$1/term"; exit 9' TERM; ` + argv[2]
	p := startZkr(t, nil, lockArgs(t, path, nil, argv...)...)
	require.Eventually(t, g.started, time.Minute, 20*time.Millisecond)
	p.signal(t, syscall.SIGTERM)
	assert.Equal(t, 9, p.wait(t, time.Minute), "zkr exits with the status the command chose on SIGTERM")
	assert.True(t, g.file("term"), "the command got SIGTERM")
	assert.Empty(t, zktest.Children(t, client(t), path))
}

func TestLock_InterruptedWhileWaitingLeavesNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			path := zktest.UniquePath(t)
			c := client(t)
			m, err := mutex.New(c, path)
			require.NoError(t, err)
			hold, err := m.Acquire(ctxOf(t))
			require.NoError(t, err)
			p := startZkr(t, nil, lockArgs(t, path, nil, "true")...)
			require.Eventually(t, func() bool { return len(zktest.Children(t, c, path)) == 2 }, time.Minute, 20*time.Millisecond)
			p.signal(t, tc.sig)
			assert.Equal(t, tc.want, p.wait(t, time.Minute), "128+N for signal N")
			assert.Eventually(t, func() bool { return len(zktest.Children(t, c, path)) == 1 }, time.Minute, 20*time.Millisecond,
				"the waiter's node is gone")
			require.NoError(t, hold.Release(ctxOf(t)))
		})
	}
}

func TestRevoke_StopsARevocableHolder(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	g := newGate(t)
	p := startZkr(t, nil, lockArgs(t, path, []string{"--revocable", "--grace", "5s"}, g.argv("")...)...)
	require.Eventually(t, g.started, time.Minute, 20*time.Millisecond)
	nodes := zktest.Children(t, client(t), path)
	require.Len(t, nodes, 1)
	code, stdout, stderr := runZkr(t, "revoke", "--servers", zktest.Servers(t), path+"/"+nodes[0])
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "revocation requested")
	assert.Equal(t, exitRevoked, p.wait(t, time.Minute), p.stderr.String())
	assert.Empty(t, zktest.Children(t, client(t), path))
	code, stdout, stderr = runZkr(t, "revoke", "--servers", zktest.Servers(t), path+"/"+nodes[0])
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "nothing to revoke")
}

func TestSemaphore_HoldsOneLeaseOfN(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	semArgs := func(flags []string, argv ...string) []string {
		args := append([]string{"semaphore", "--servers", zktest.Servers(t), "--leases", "2"}, flags...)
		return append(append(args, path, "--"), argv...)
	}
	g1, g2 := newGate(t), newGate(t)
	p1 := startZkr(t, nil, semArgs(nil, g1.argv("exit 0")...)...)
	p2 := startZkr(t, nil, semArgs(nil, g2.argv("exit 4")...)...)
	require.Eventually(t, func() bool { return g1.started() && g2.started() }, time.Minute, 20*time.Millisecond,
		"two holders of two leases")
	code, _, stderr := runZkr(t, semArgs([]string{"--timeout", heldTimeout}, "true")...)
	assert.Equal(t, exitNotAcquired, code, "a third lease of two: %s", stderr)
	g1.open(t)
	g2.open(t)
	assert.Equal(t, 0, p1.wait(t, time.Minute))
	assert.Equal(t, 4, p2.wait(t, time.Minute))
	assert.Empty(t, zktest.Children(t, client(t), path+"/leases"))
}

func TestSemaphore_CountPathGivesTheMaximum(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	countPath := path + "-max"
	count, err := sharedcount.New(client(t), countPath, 1)
	require.NoError(t, err)
	require.NoError(t, count.Set(ctxOf(t), 1))
	semArgs := func(flags []string, argv ...string) []string {
		args := append([]string{"semaphore", "--servers", zktest.Servers(t), "--count-path", countPath}, flags...)
		return append(append(args, path, "--"), argv...)
	}
	g := newGate(t)
	p := startZkr(t, nil, semArgs(nil, g.argv("exit 0")...)...)
	require.Eventually(t, g.started, time.Minute, 20*time.Millisecond)
	code, _, stderr := runZkr(t, semArgs([]string{"--timeout", heldTimeout}, "true")...)
	assert.Equal(t, exitNotAcquired, code, "a second lease of a count of 1: %s", stderr)
	r := inspectJSON(t, path, "--count-path", countPath)
	assert.Equal(t, 1, r.Max)
	assert.Len(t, r.Holders, 1)
	g.open(t)
	assert.Equal(t, 0, p.wait(t, time.Minute))

	code, _, stderr = runZkr(t, "semaphore", "--servers", zktest.Servers(t), "--count-path", path+"-none", path, "--", "true")
	assert.Equal(t, exitError, code, "a missing count node is not created without --leases: %s", stderr)
}

func TestLock_PartitionFromZooKeeperStopsTheCommand(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	g := newGate(t)
	argv := g.argv("")
	argv[2] = `trap 'touch "$1/term"; exit 0' TERM; ` + argv[2]
	args := append([]string{"lock", "--servers", proxy.Addr(), "--session-timeout", "2s", path, "--"}, argv...)
	p := startZkr(t, nil, args...)
	require.Eventually(t, g.started, time.Minute, 20*time.Millisecond)
	proxy.Pause()
	assert.Equal(t, exitLost, p.wait(t, time.Minute), p.stderr.String())
	assert.True(t, g.file("term"), "the command got SIGTERM")
	assert.Contains(t, p.stderr.String(), "connection suspended")
	proxy.Resume()
}
