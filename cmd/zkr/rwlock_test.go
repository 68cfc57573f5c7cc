package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
)

// rwlockArgs is `zkr rwlock --servers S --KIND [flags] PATH -- argv`.
func rwlockArgs(t *testing.T, kind, path string, flags []string, argv ...string) []string {
	args := append([]string{"rwlock", "--servers", zktest.Servers(t), "--" + kind}, flags...)
	return append(append(args, path, "--"), argv...)
}

// Readers share through zkr, a writer is kept out while they hold, and a
// zkr writer keeps a Go reader out.
func TestRWLock_ReadersShareAndWritersAreAlone(t *testing.T) {
	t.Parallel()
	path := zktest.UniquePath(t)
	g := newGate(t)
	reader := startZkr(t, nil, rwlockArgs(t, "read", path, nil, g.argv("exit 0")...)...)
	require.Eventually(t, g.started, time.Minute, 20*time.Millisecond, "the reader never ran its command")

	code, _, stderr := runZkr(t, rwlockArgs(t, "read", path, []string{"--timeout", "10s"}, "true")...)
	assert.Equal(t, 0, code, "a second reader shares the lock: %s", stderr)
	code, _, stderr = runZkr(t, rwlockArgs(t, "write", path, []string{"--timeout", heldTimeout}, "true")...)
	assert.Equal(t, exitNotAcquired, code, "a writer got in beside a reader: %s", stderr)
	g.open(t)
	assert.Equal(t, 0, reader.wait(t, time.Minute), reader.stderr.String())

	w := newGate(t)
	writer := startZkr(t, nil, rwlockArgs(t, "write", path, nil, w.argv("exit 3")...)...)
	require.Eventually(t, w.started, time.Minute, 20*time.Millisecond, "the writer never ran its command")
	rw, err := rwlock.New(client(t), path)
	require.NoError(t, err)
	_, err = rw.ReadLock().TryAcquire(ctxOf(t))
	require.ErrorIs(t, err, rwlock.ErrNotAcquired, "a Go reader got in beside a zkr writer")
	w.open(t)
	assert.Equal(t, 3, writer.wait(t, time.Minute), "zkr exits with its command's status")
}

func TestRWLock_NeedsExactlyOneKind(t *testing.T) {
	t.Parallel()
	for _, flags := range [][]string{nil, {"--read", "--write"}} {
		args := append([]string{"rwlock", "--servers", zktest.Servers(t)}, flags...)
		code, _, stderr := runZkr(t, append(args, "/x", "--", "true")...)
		assert.Equal(t, exitUsage, code, stderr)
		assert.Contains(t, stderr, "--read")
	}
}
