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
)

// summaryRow returns the fields of the summary row of recipe.
func summaryRow(t *testing.T, out, recipe string) []string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == recipe {
			return f
		}
	}
	t.Fatalf("no summary row for %s in:\n%s", recipe, out)
	return nil
}

func TestDemo_FinishesWithoutViolationsAndLeavesNothing(t *testing.T) {
	t.Parallel()
	zktest.Integration(t)
	tmp := t.TempDir()
	p := startZkr(t, []string{"TMPDIR=" + tmp}, "demo")
	code := p.wait(t, 3*time.Minute)
	out := p.stdout.String()
	t.Logf("zkr demo:\n%s", out)
	require.Equal(t, 0, code, p.stderr.String())

	// recipe acquired lost p50 p99 holders/limit tokens... violations nodes-left
	mutexRow := summaryRow(t, out, "mutex")
	assert.Equal(t, []string{"50", "1"}, mutexRow[1:3], "50 acquisitions, one hold lost")
	assert.Equal(t, "1/1", mutexRow[5])
	assert.Equal(t, []string{"50", "of", "50"}, mutexRow[6:9], "every fencing token in order")
	assert.Equal(t, []string{"0", "0"}, mutexRow[len(mutexRow)-2:], "no violation, no node left")
	semRow := summaryRow(t, out, "semaphore")
	assert.Equal(t, []string{"50", "1"}, semRow[1:3])
	assert.Regexp(t, `^[123]/3$`, semRow[5])
	assert.Equal(t, []string{"50", "of", "50"}, semRow[6:9], "every lease's token above those released before it")
	assert.Equal(t, []string{"0", "0"}, semRow[len(semRow)-2:])

	readRow, writeRow := summaryRow(t, out, "rwlock/read"), summaryRow(t, out, "rwlock/write")
	assert.Equal(t, "1/1", writeRow[5], "a writer holds alone")
	assert.Regexp(t, `^[1-5]/5$`, readRow[5])
	acquired := 0
	for _, row := range [][]string{readRow, writeRow} {
		n, err := strconv.Atoi(row[1])
		require.NoError(t, err)
		acquired += n
		assert.Equal(t, row[1:2], row[6:7], "every %s token in order: %v", row[0], row)
		assert.Equal(t, row[1:2], row[8:9], "every %s token in order: %v", row[0], row)
		assert.Equal(t, []string{"0", "0"}, row[len(row)-2:], "no violation, no node left: %v", row)
	}
	assert.Equal(t, 50, acquired)
	assert.Equal(t, "12", writeRow[1], "one acquisition in four writes")

	assert.Contains(t, out, "is told it lost the mutex")
	assert.Contains(t, out, "is told it lost a semaphore lease")
	assert.Regexp(t, `is told it lost the (read|write) lock`, out)
	assert.Regexp(t, `worker \d takes the mutex \(token \d+\) [0-9.]+s after the kill`, out)
	assert.Regexp(t, `worker \d takes a semaphore lease \(token \d+\) [0-9.]+s after the kill`, out)
	assert.Regexp(t, `worker \d takes the (read|write) lock \(token \d+\) [0-9.]+s after the kill`, out)
	assert.Contains(t, out, "Stopped the local ZooKeeper")
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, entries, "the server's directory is removed")
	assert.Empty(t, processesUsing(t, tmp), "the server's JVM is gone")
}

func TestDemo_CtrlCStopsTheServerAndLeavesNothing(t *testing.T) {
	t.Parallel()
	zktest.Integration(t)
	tmp := t.TempDir()
	p := startZkr(t, []string{"TMPDIR=" + tmp}, "demo")
	require.Eventually(t, func() bool { return strings.Contains(p.stdout.String(), "== mutex") },
		2*time.Minute, 20*time.Millisecond, "the demo gets going: %s", p.stderr)
	p.signal(t, syscall.SIGINT)
	assert.Equal(t, exitInterrupted, p.wait(t, time.Minute), p.stderr.String())
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, entries, "the server's directory is removed")
	assert.Empty(t, processesUsing(t, tmp), "the server's JVM is gone")
}

func TestDemo_UnreachableServerFailsInBoundedTime(t *testing.T) {
	t.Parallel()
	zktest.Integration(t)
	code, stdout, stderr := runZkr(t, "demo", "--servers", "127.0.0.1:1")
	assert.Equal(t, exitUnreachable, code, stderr)
	assert.Contains(t, stdout, "Connecting 5 workers to 127.0.0.1:1")
	assert.Equal(t, "zkr: ZooKeeper unreachable: no session with 127.0.0.1:1 within 10s\n", stderr)
}
