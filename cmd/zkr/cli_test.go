package main

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

func TestZkr_BadInputGivesOneLineAndStatus2(t *testing.T) {
	t.Parallel()
	servers := zktest.Servers(t)
	for _, args := range [][]string{
		nil,
		{"nosuch"},
		{"lock", "--nosuchflag", "/a", "--", "true"},
		{"lock", "--servers", servers, "relative/path", "--", "true"},
		{"lock", "--servers", servers, "/a", "--"},
		{"semaphore", "--servers", servers, "--leases", "1", "/a"},
		{"lock", "--servers", servers, "/a", "/b", "--", "true"},
		{"lock", "--servers", servers, "--on-lost", "maybe", "/a", "--", "true"},
		{"lock", "--servers", servers, "--timeout", "soon", "/a", "--", "true"},
		{"semaphore", "--servers", servers, "/a", "--", "true"},
		{"inspect", "--servers", servers, "/a//b"},
		{"inspect", "--servers", servers, "/a", "--", "true"},
		{"revoke", "--servers", servers},
		{"revoke", "--servers", servers, "/locks/job"},
		{"server", "--port", "-1"},
		{"demo", "--workers", "1"},
	} {
		code, stdout, stderr := runZkr(t, args...)
		assert.Equal(t, exitUsage, code, "%q: %s", args, stderr)
		if args != nil {
			assert.Empty(t, stdout, "%q", args)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "%q: one line: %s", args, stderr)
		}
		assert.True(t, strings.HasPrefix(stderr, "zkr: ") || args == nil, "%q: %s", args, stderr)
	}
}

func TestZkr_UnreachableServerFailsInBoundedTimeWithStatus3(t *testing.T) {
	t.Parallel()
	zktest.Integration(t)
	for _, args := range [][]string{
		{"lock", "/a", "--", "true"},
		{"semaphore", "--leases", "2", "/a", "--", "true"},
		{"elect", "/a", "--", "true"},
		{"inspect", "/a"},
		{"watch", "/a"},
		{"revoke", "/a/_c_x-lock-0000000000"},
		{"counter", "add", "/a", "1"},
		{"barrier", "wait", "/a"},
		{"barrier", "--members", "2", "enter", "/a", "--", "true"},
		{"queue", "put", "/a", "x"},
		{"queue", "take", "/a"},
		{"queue", "ls", "/a"},
	} {
		start := time.Now()
		args = append([]string{args[0], "--servers", "127.0.0.1:1", "--connect-timeout", "1s"}, args[1:]...)
		code, _, stderr := runZkr(t, args...)
		assert.Equal(t, exitUnreachable, code, "%q: %s", args, stderr)
		assert.True(t, strings.HasPrefix(stderr, "zkr: ZooKeeper unreachable: "), "%q: %s", args, stderr)
		assert.Contains(t, stderr, "127.0.0.1:1", "the message names the server")
		assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)
		assert.Less(t, time.Since(start), 30*time.Second, "%q", args)
	}
}

func TestZkr_AuthIsUsedAndNeverPrinted(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	code, _, stderr := runZkr(t, "lock", "--servers", zktest.Servers(t), "--auth", "alice:s3cret", path, "--", "true")
	assert.Equal(t, 0, code, stderr)
	code, _, stderr = runZkr(t, "lock", "--servers", "127.0.0.1:1", "--connect-timeout", "1s", "--auth", "alice:s3cret", path, "--", "true")
	assert.Equal(t, exitUnreachable, code)
	assert.NotContains(t, stderr, "s3cret")
	code, _, stderr = runZkr(t, "lock", "--auth", "nocolon", path, "--", "true")
	assert.Equal(t, exitUsage, code)
	assert.NotContains(t, stderr, "nocolon")
}

func TestZkr_NamespacePrefixesPaths(t *testing.T) {
	t.Parallel()
	ns := zktest.UniquePath(t)
	g := newGate(t)
	args := append([]string{"lock", "--servers", zktest.Servers(t), "--namespace", ns, "/job", "--"}, g.argv("exit 0")...)
	p := startZkr(t, nil, args...)
	require.Eventually(t, g.started, time.Minute, 20*time.Millisecond)
	assert.Len(t, zktest.Children(t, client(t), ns+"/job"), 1)
	g.open(t)
	assert.Equal(t, 0, p.wait(t, time.Minute))
}

func TestZkr_HelpListsFlagsAndExitStatuses(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runZkr(t, "help")
	assert.Equal(t, 0, code)
	for _, want := range []string{"zkr lock", "zkr semaphore", "zkr rwlock", "zkr elect", "zkr inspect", "zkr watch", "zkr revoke", "zkr server", "zkr demo",
		"zkr barrier", "zkr counter", "zkr queue", "--servers", "Exit statuses",
		"Common flags of lock, semaphore, rwlock, elect, inspect, watch, services, register, barrier, counter, queue, revoke, get, set, create, ls, stat and rm",
		"zkr get", "zkr set", "zkr create", "zkr ls", "zkr stat", "zkr rm", "--version"} {
		assert.Contains(t, stdout, want)
	}
	code, stdout, _ = runZkr(t, "lock", "-h")
	assert.Equal(t, 0, code)
	for _, want := range []string{"--timeout", "--on-lost", "--grace", "--revocable", "--error-policy", "--servers", "ZKR_FENCING_TOKEN"} {
		assert.Contains(t, stdout, want)
	}
	assert.NotContains(t, stdout, "Exit statuses:", "the table is in zkr help only")
	assert.Contains(t, stdout, "zkr help")
	code, stdout, _ = runZkr(t, "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "Exit statuses")
}

func TestZkr_VersionSaysWhatWasBuilt(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runZkr(t, "--version")
	assert.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, "zkr "), stdout)
	assert.Equal(t, 1, strings.Count(stdout, "\n"), stdout)
}

func TestServer_ServesUntilInterruptedAndLeavesNothing(t *testing.T) {
	t.Parallel()
	zktest.Integration(t)
	tmp := t.TempDir()
	p := startZkr(t, []string{"TMPDIR=" + tmp}, "server")
	var addr string
	require.Eventually(t, func() bool {
		line, err := bufio.NewReader(strings.NewReader(p.stdout.String())).ReadString('\n')
		addr = strings.TrimSpace(line)
		return err == nil
	}, 2*time.Minute, 50*time.Millisecond, "zkr server prints its connect string: %s", p.stderr)
	assert.True(t, strings.HasPrefix(addr, "127.0.0.1:"), addr)
	c, err := framework.Connect(ctxOf(t), []string{addr})
	require.NoError(t, err)
	require.NoError(t, c.Close())
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the server's directory")
	serverDir := filepath.Join(tmp, entries[0].Name())

	p.signal(t, syscall.SIGINT)
	assert.Equal(t, 0, p.wait(t, time.Minute), p.stderr.String())
	assert.NoDirExists(t, serverDir)
	assert.Empty(t, processesUsing(t, serverDir), "the server's JVM is gone")
}

// processesUsing returns the PIDs whose command line mentions s.
func processesUsing(t *testing.T, s string) []string {
	t.Helper()
	var pids []string
	dirs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	require.NoError(t, err)
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err == nil && strings.Contains(string(b), s) {
			pids = append(pids, filepath.Base(filepath.Dir(f)))
		}
	}
	return pids
}

func TestServer_FailsWhenThePortIsTaken(t *testing.T) {
	t.Parallel()
	_, port, err := net.SplitHostPort(zktest.Servers(t))
	require.NoError(t, err)
	code, stdout, stderr := runZkr(t, "server", "--port", port)
	assert.Equal(t, exitError, code, stderr)
	assert.Empty(t, stdout, "no connect string for a server that does not run")
	assert.Contains(t, stderr, "port in use")
}

// A COMMAND given without the "--" before it is refused with a message
// that says to put it there, before anything is acquired.
func TestZkr_CommandWithoutDashDashSaysToPutItThere(t *testing.T) {
	t.Parallel()
	servers := zktest.Servers(t)
	path := zktest.UniquePath(t)
	for _, tc := range []struct {
		args    []string // before PATH
		command []string
	}{
		{[]string{"lock"}, []string{"true"}},
		{[]string{"lock"}, []string{"sh", "-c", "exit 0"}},
		{[]string{"semaphore", "--leases", "2"}, []string{"true"}},
		{[]string{"rwlock", "--read"}, []string{"true"}},
		{[]string{"elect"}, []string{"true"}},
		{[]string{"barrier", "enter", "--members", "2"}, []string{"true"}},
	} {
		args := append(append(append(tc.args, "--servers", servers), path), tc.command...)
		code, _, stderr := runZkr(t, args...)
		assert.Equal(t, exitUsage, code, "%q: %s", args, stderr)
		assert.Contains(t, stderr, "put -- before COMMAND", "%q", args)
		assert.Contains(t, stderr, path+" -- "+strings.Join(tc.command, " "), "%q: the message shows the fix", args)
	}
	c := zktest.Connect(t, servers)
	ok, _, err := c.Exists(zktest.Context(t), path)
	require.NoError(t, err)
	assert.False(t, ok, "nothing was acquired")
}

// zkr help names every recipe of the library, and which command speaks it.
func TestZkr_HelpListsEveryRecipe(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runZkr(t, "help")
	require.Equal(t, 0, code)
	dirs, err := os.ReadDir(filepath.Join("..", "..", "recipes"))
	require.NoError(t, err)
	for _, d := range dirs {
		if d.IsDir() && d.Name() != "internal" {
			assert.Contains(t, stdout, "recipes/"+d.Name(), "zkr help names %s", d.Name())
		}
	}
	for _, want := range []string{"LeaderSelector", "LeaderLatch", "InterProcessReadWriteLock", "InterProcessMultiLock", "zkr elect", "zkr rwlock", "zkr services", "zkr register",
		"DistributedAtomicLong", "DistributedDoubleBarrier", "zkr counter", "zkr barrier",
		"DistributedPriorityQueue", "DistributedDelayQueue", "DistributedIdQueue", "SimpleDistributedQueue", "zkr queue"} {
		assert.Contains(t, stdout, want)
	}
}

// An empty --servers (a script's unset variable) is a usage error, not the
// default 127.0.0.1:2181.
func TestZkr_EmptyServersIsAUsageError(t *testing.T) {
	t.Parallel()
	for _, servers := range []string{"", " "} {
		code, stdout, stderr := runZkr(t, "inspect", "--servers", servers, "--connect-timeout", "1m", "/a")
		assert.Equal(t, exitUsage, code, "%q: %s", servers, stderr)
		assert.Empty(t, stdout)
		assert.Contains(t, stderr, "zkr: usage: --servers is empty")
	}
}
