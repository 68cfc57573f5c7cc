package main

import (
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

// With an exit base, zkr's own failures exit above it and COMMAND's
// statuses as they are, so that a COMMAND exiting 3 to 6 is never taken
// for "unreachable", "not acquired", "lost" or "revoked".
func TestZkr_ExitBaseTellsZkrsStatusesFromCommands(t *testing.T) {
	t.Parallel()
	servers := zktest.Servers(t)
	path := zktest.UniquePath(t)
	base := []string{"ZKR_EXIT_BASE=100"}
	run := func(env []string, args ...string) (int, string) {
		p := startZkr(t, env, args...)
		return p.wait(t, time.Minute), p.stderr.String()
	}

	for status := 3; status <= 6; status++ {
		code, stderr := run(base, "lock", "--servers", servers, path, "--", "sh", "-c", "exit "+strconv.Itoa(status))
		assert.Equal(t, status, code, "COMMAND's own status: %s", stderr)
		assert.NotContains(t, stderr, "zkr: ", "zkr adds no failure of its own")
	}

	code, stderr := run(nil, "lock", "--exit-base", "100", "--servers", "127.0.0.1:1", "--connect-timeout", "300ms", path, "--", "true")
	assert.Equal(t, 100+exitUnreachable, code, stderr)
	assert.True(t, strings.HasPrefix(stderr, "zkr: ZooKeeper unreachable: "), stderr)

	m, err := mutex.New(client(t), path)
	require.NoError(t, err)
	hold, err := m.Acquire(ctxOf(t))
	require.NoError(t, err)
	code, stderr = run(base, "lock", "--servers", servers, "--timeout", "3s", path, "--", "true")
	assert.Equal(t, 100+exitNotAcquired, code, stderr)
	require.NoError(t, hold.Release(ctxOf(t)))

	code, stderr = run(base, "lock", "--nosuchflag", path)
	assert.Equal(t, 100+exitUsage, code, "a usage error under $ZKR_EXIT_BASE: %s", stderr)
	code, stderr = run(nil, "lock", "--servers", servers, path, "--", "sh", "-c", "exit 3")
	assert.Equal(t, exitUnreachable, code, "without a base, statuses are as before: %s", stderr)
	for _, bad := range [][]string{{"ZKR_EXIT_BASE=x"}, {"ZKR_EXIT_BASE=120"}} {
		code, stderr = run(bad, "lock", "--servers", servers, path, "--", "true")
		assert.Equal(t, exitUsage, code, "%q: %s", bad, stderr)
	}
	code, stderr = run(nil, "lock", "--exit-base", "-1", "--servers", servers, path, "--", "true")
	assert.Equal(t, exitUsage, code, stderr)
}

func TestExitCode_ShiftsOnlyZkrsOwnStatuses(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{based{err: errNoCommand, base: 100}, exitNoCommand},
		{based{err: exitStatus(5), base: 100}, 5},
		{based{err: interruption{syscall.SIGTERM}, base: 100}, 143},
		{based{err: errLostHold, base: 100}, 105},
		{based{err: errRevoked, base: 100}, 106},
		{based{err: usagef("x"), base: 100}, 102},
		{errRevoked, exitRevoked},
	} {
		assert.Equal(t, tc.want, exitCode(tc.err), "%v", tc.err)
	}
}
