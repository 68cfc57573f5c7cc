package leader_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// longLine bounds a log line of the package: a participant's id may be
// close to a megabyte, and a join tried again at every back-off must not
// write it each time.
const longLine = 4 << 10

// readOnlyElection returns an election's path whose directory refuses
// every create, so that each join fails.
func readOnlyElection(t *testing.T, c *framework.Client) string {
	t.Helper()
	p := zktest.UniquePath(t)
	readOnly := []zk.ACL{{Perms: zk.PermRead, Scheme: "world", ID: "anyone"}}
	_, err := c.Create(testContext(t), p, nil, framework.Persistent, framework.WithParents(), framework.WithACL(readOnly))
	require.NoError(t, err)
	return p
}

// checkLines fails the test unless lines has some log line and none is
// longer than longLine.
func checkLines(t *testing.T, lines string) {
	t.Helper()
	require.NotEmpty(t, lines)
	for _, line := range strings.Split(strings.TrimSpace(lines), "\n") {
		assert.LessOrEqual(t, len(line), longLine, "a log line carries %.200s...", line)
	}
}

// A selector whose joins keep failing logs each try, but not its long id
// (nor any other value of unbounded length).
func TestSelector_FailedJoinsLogNoUnboundedValue(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	p := readOnlyElection(t, c)
	logger, lines := capturedLogger()
	s := newSelector(t, c, p, returns, leader.WithID(strings.Repeat("x", 100<<10)), leader.WithAutoRequeue(), leader.WithLogger(logger))
	ctx, cancel := context.WithCancel(testContext(t))
	ran := make(chan error, 1)
	// Ends when ctx is cancelled.
	go func() { ran <- s.Run(ctx) }()
	require.Eventually(t, func() bool { return strings.Count(lines.String(), "trying again") >= 2 },
		10*time.Second, 5*time.Millisecond, "the selector tries again")
	cancel()
	require.ErrorIs(t, <-ran, context.Canceled)
	checkLines(t, lines.String())
}

// A latch that leaves for a join the server refuses logs why, but not its
// long id.
func TestLatch_LeavingLogsNoUnboundedValue(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	logger, lines := capturedLogger()
	l := startLatch(t, c, readOnlyElection(t, c), leader.WithID(strings.Repeat("x", 100<<10)), leader.WithLogger(logger))
	_, err := l.Await(testContext(t))
	require.ErrorIs(t, err, zk.ErrNoAuth)
	checkLines(t, lines.String())
}
