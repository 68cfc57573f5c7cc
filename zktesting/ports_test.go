package zktesting

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFreePorts_DistinctAndHeldUntilReleased(t *testing.T) {
	ports, release, err := freePorts(5)
	require.NoError(t, err)
	seen := map[int]bool{}
	for _, p := range ports {
		assert.False(t, seen[p], "port %d picked twice", p)
		seen[p] = true
		assert.ErrorIs(t, portFree(addrOf(p)), ErrPortInUse, "held until released")
	}
	release()
	release() // harmless
	for _, p := range ports {
		assert.NoError(t, portFree(addrOf(p)))
	}
}

func TestWithFreshPorts_PicksAgainOnlyAfterAPortRace(t *testing.T) {
	race := errors.Join(ErrExited, ErrPortInUse)
	failing := func(errs ...error) (func() (int, error), *int) {
		calls := 0
		return func() (int, error) {
			calls++
			if calls <= len(errs) {
				return 0, errs[calls-1]
			}
			return calls, nil
		}, &calls
	}
	start, _ := failing(race, race)
	n, err := withFreshPorts(options{logger: discard()}, start)
	require.NoError(t, err)
	assert.Equal(t, 3, n)

	start, calls := failing(race, race, race)
	_, err = withFreshPorts(options{logger: discard()}, start)
	assert.ErrorIs(t, err, ErrPortInUse)
	assert.Equal(t, portAttempts, *calls, "gives up")

	start, calls = failing(race)
	_, err = withFreshPorts(options{logger: discard(), port: 2181}, start)
	assert.ErrorIs(t, err, ErrPortInUse)
	assert.Equal(t, 1, *calls, "a port the caller chose is not picked again")

	start, calls = failing(ErrNotReady)
	_, err = withFreshPorts(options{logger: discard()}, start)
	assert.ErrorIs(t, err, ErrNotReady)
	assert.Equal(t, 1, *calls, "other failures are not a port race")
}

// A server that exits as the JVM does when its port was taken between the
// pick and the bind fails with ErrPortInUse as well as ErrExited.
func TestAwaitReady_ABindFailureIsAPortInUse(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	logPath := filepath.Join(t.TempDir(), "zookeeper.log")
	for _, tc := range []struct {
		log  string
		race bool
	}{
		{"java.net.BindException: Address already in use", true},
		{"java.lang.OutOfMemoryError: Java heap space", false},
	} {
		require.NoError(t, os.WriteFile(logPath, nil, 0o644))
		p, err := launch("/bin/sh", []string{"-c", "echo '" + tc.log + "' >&2; exit 14"}, logPath)
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err = awaitReady(ctx, addrOf(1), p, logPath, discard())
		cancel()
		assert.ErrorIs(t, err, ErrExited)
		assert.Equal(t, tc.race, errors.Is(err, ErrPortInUse), tc.log)
	}
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
