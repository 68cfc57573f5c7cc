package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// asZkr is set in the environment of a test binary that is to run as zkr.
const asZkr = "ZKR_TEST_RUN_AS_ZKR"

// heldTimeout is the --timeout of a zkr that is to find the lock held and
// exit with status 4. It covers the process's start, its connection and the
// answers that show the lock held: on a loaded machine these outlasted
// 300 ms, and zkr rightly said that the deadline ran out before the
// server answered (status 3).
// The lock stays held throughout, so zkr waits it out whatever it is.
const heldTimeout = "3s"

// TestMain runs the tests, or, when the tests start this binary as zkr
// (asZkr), zkr's main: the tests run the command as its own process, with
// its real arguments, signals and exit statuses.
func TestMain(m *testing.M) {
	if os.Getenv(asZkr) == "1" {
		main()
		return
	}
	zktest.Main(m)
}

// zkrProcess is one run of zkr.
type zkrProcess struct {
	cmd            *exec.Cmd
	stdout, stderr *syncBuffer
	done           chan struct{} // closed once it has exited and code is set
	code           int
}

// startZkr starts zkr with args; env adds variables. It is killed at the
// end of the test if still running.
func startZkr(t testing.TB, env []string, args ...string) *zkrProcess {
	t.Helper()
	return startZkrStdin(t, env, nil, args...)
}

// startZkrStdin is startZkr with stdin (nil: none).
func startZkrStdin(t testing.TB, env []string, stdin io.Reader, args ...string) *zkrProcess {
	t.Helper()
	p := &zkrProcess{stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(os.Args[0], args...)
	p.cmd.Stdin = stdin
	p.cmd.Env = append(append(os.Environ(), asZkr+"=1"), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	// Its own process group, so that clean-up can end COMMAND too; and no
	// wait for a COMMAND that outlives zkr and keeps the output open.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd.WaitDelay = 5 * time.Second
	require.NoError(t, p.cmd.Start())
	// Ends when zkr exits.
	go func() {
		_ = p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	t.Cleanup(func() {
		// zkr's process group: zkr and the COMMAND it ran, if still there.
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	})
	return p
}

// wait returns zkr's exit status, failing the test if it runs past timeout.
func (p *zkrProcess) wait(t testing.TB, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(timeout):
		t.Fatalf("zkr still running after %v; stdout:\n%s\nstderr:\n%s", timeout, p.stdout, p.stderr)
		return -1
	}
}

// running tells whether zkr has not exited.
func (p *zkrProcess) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// signal sends sig to zkr.
func (p *zkrProcess) signal(t testing.TB, sig syscall.Signal) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(sig))
}

// usageFails runs zkr with args (the command first) against a server
// that is not there, and checks that it fails at once as a usage error:
// exit status 2, nothing on stdout, one line on stderr that says says.
func usageFails(t *testing.T, args []string, says string) {
	t.Helper()
	start := time.Now()
	args = append([]string{args[0], "--servers", "127.0.0.1:1", "--connect-timeout", "1m"}, args[1:]...)
	code, stdout, stderr := runZkr(t, args...)
	assert.Equal(t, exitUsage, code, "%q: %s", args, stderr)
	assert.Empty(t, stdout)
	assert.True(t, strings.HasPrefix(stderr, "zkr: "), "%q: %s", args, stderr)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "%q: one line: %s", args, stderr)
	assert.Contains(t, stderr, says, "%q", args)
	assert.Less(t, time.Since(start), 30*time.Second, "%q: no wait for the server", args)
}

// runZkr runs zkr to its end and returns its status and output.
func runZkr(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	p := startZkr(t, nil, args...)
	code = p.wait(t, 2*time.Minute)
	return code, p.stdout.String(), p.stderr.String()
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// gate is a child command that says when it runs and waits to be let go:
// `sh -c` that writes $dir/started (with the fencing token), then waits
// for $dir/go and exits with status 0.
type gate struct{ dir string }

func newGate(t *testing.T) gate { return gate{dir: t.TempDir()} }

// argv is the child's command line; the script runs after the gate.
func (g gate) argv(after string) []string {
	script := `echo "$ZKR_FENCING_TOKEN" > "$1/started.tmp"; mv "$1/started.tmp" "$1/started"; ` +
		`while [ ! -e "$1/go" ]; do sleep 0.05; done; ` + after
	return []string{"sh", "-c", script, "gate", g.dir}
}

// started tells whether the child has started.
func (g gate) started() bool {
	_, err := os.Stat(filepath.Join(g.dir, "started"))
	return err == nil
}

// token returns the fencing token the child was given.
func (g gate) token(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join(g.dir, "started"))
	require.NoError(t, err)
	return strings.TrimSpace(string(b))
}

// open lets the child go on.
func (g gate) open(t *testing.T) {
	require.NoError(t, os.WriteFile(filepath.Join(g.dir, "go"), nil, 0o644))
}

// file tells whether the child wrote name into the gate's directory.
func (g gate) file(name string) bool {
	_, err := os.Stat(filepath.Join(g.dir, name))
	return err == nil
}

// client returns a framework client of the shared server.
func client(t testing.TB) *framework.Client {
	t.Helper()
	return zktest.Connect(t, zktest.Servers(t))
}

// ctxOf returns a test's context.
func ctxOf(t *testing.T) context.Context { return zktest.Context(t) }

// pid returns the process id the child wrote into name.
func (g gate) pid(t *testing.T, name string) int {
	t.Helper()
	var pid int
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(filepath.Join(g.dir, name))
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	}, time.Minute, 20*time.Millisecond)
	return pid
}

// alive tells whether process pid runs: it exists and is no zombie (a
// zombie that init has not reaped yet no longer runs).
func alive(pid int) bool {
	state := procState(pid)
	return state != 0 && state != 'Z'
}

// procState returns the state letter of process pid (R, S, T, Z, ...), or
// 0 if there is no such process.
func procState(pid int) byte {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The state follows the command name in parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return 0
	}
	return s[i+2]
}
