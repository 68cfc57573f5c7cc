package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// printedVars returns the NAME=value lines zkr printed, once it has
// printed ZKR_FENCING_TOKEN.
func printedVars(t *testing.T, p *zkrProcess) map[string]string {
	t.Helper()
	said := func() bool { return strings.Contains(p.stdout.String(), "ZKR_FENCING_TOKEN=") }
	require.Eventually(t, func() bool { return said() || isDone(p.done) }, time.Minute, 20*time.Millisecond)
	require.True(t, said(), "zkr never said it holds: %s", p.stderr)
	vars := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(p.stdout.String()), "\n") {
		name, value, _ := strings.Cut(line, "=")
		vars[name] = value
	}
	return vars
}

// Without COMMAND, `zkr lock` holds the lock until SIGINT or SIGTERM, as
// etcdctl lock does: it prints the node and its fencing token, excludes
// others meanwhile, and releases on the signal with status 0.
func TestLock_WithoutCommandHoldsUntilSignalled(t *testing.T) {
	t.Parallel()
	c := client(t)
	for _, sig := range []os.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			path := zktest.UniquePath(t)
			p := startZkr(t, nil, "lock", "--servers", zktest.Servers(t), path)
			vars := printedVars(t, p)
			node := vars["ZKR_LOCK_NODE"]
			assert.Regexp(t, `^`+path+`/_c_[0-9a-f-]{36}-lock-\d{10}$`, node)
			token, err := strconv.ParseInt(vars["ZKR_FENCING_TOKEN"], 10, 64)
			require.NoError(t, err)
			ok, stat, err := c.Exists(ctxOf(t), node)
			require.NoError(t, err)
			require.True(t, ok, "the printed node is there")
			assert.Equal(t, stat.Czxid, token, "the token is the node's creation zxid")

			m, err := mutex.New(c, path)
			require.NoError(t, err)
			_, err = m.TryAcquire(ctxOf(t))
			require.ErrorIs(t, err, mutex.ErrNotAcquired, "zkr holds the lock")
			select {
			case <-p.done:
				t.Fatalf("zkr exited while holding: %s", p.stderr)
			case <-time.After(200 * time.Millisecond):
			}

			require.NoError(t, p.cmd.Process.Signal(sig))
			assert.Equal(t, 0, p.wait(t, time.Minute), p.stderr.String())
			ok, _, err = c.Exists(ctxOf(t), node)
			require.NoError(t, err)
			assert.False(t, ok, "released: the node is gone")
		})
	}
}

// A hold without COMMAND that is lost ends zkr with status 5.
func TestLock_WithoutCommandLostIsStatus5(t *testing.T) {
	t.Parallel()
	c := client(t)
	path := zktest.UniquePath(t)
	p := startZkr(t, nil, "lock", "--servers", zktest.Servers(t), path)
	node := printedVars(t, p)["ZKR_LOCK_NODE"]
	require.NoError(t, c.Delete(ctxOf(t), node, -1))
	assert.Equal(t, exitLost, p.wait(t, time.Minute), p.stderr.String())
	assert.Contains(t, p.stderr.String(), "zkr: hold lost")
}

// isDone tells whether ch is closed.
func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
