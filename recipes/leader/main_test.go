package leader_test

import (
	"context"
	"path"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

func TestMain(m *testing.M) { zktest.Main(m) }

// Helpers shared by the integration tests of every package.
var (
	connect     = zktest.Connect
	testContext = zktest.Context
	children    = zktest.Children
	waitClosed  = zktest.WaitClosed
)

// startLatch makes a latch on c at p, starts it and closes it when the
// test ends.
func startLatch(t testing.TB, c *framework.Client, p string, opts ...leader.Option) *leader.Latch {
	t.Helper()
	l, err := leader.NewLatch(c, p, opts...)
	require.NoError(t, err)
	require.NoError(t, l.Start(context.Background()))
	t.Cleanup(func() { _ = l.Close(context.Background()) })
	return l
}

// await returns l's term, failing the test unless it leads within d.
func await(t testing.TB, l *leader.Latch, d time.Duration, what string) *leader.Leadership {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	lead, err := l.Await(ctx)
	require.NoError(t, err, "%s: await", what)
	return lead
}

// notLeading fails the test if l leads within d.
func notLeading(t testing.TB, l *leader.Latch, d time.Duration, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	lead, err := l.Await(ctx)
	if err == nil {
		t.Fatalf("%s leads (node %s)", what, lead.Node())
	}
	require.ErrorIs(t, err, context.DeadlineExceeded, what)
}

// queueIDs returns the participant ids at p in queue order, read through
// c: the ids are the nodes' data.
func queueIDs(t testing.TB, c *framework.Client, p string) []string {
	t.Helper()
	names := children(t, c, p)
	sortLatch(names)
	ids := make([]string, 0, len(names))
	for _, n := range names {
		data, _, err := c.Get(testContext(t), path.Join(p, n))
		if assert.NoError(t, err) {
			ids = append(ids, string(data))
		}
	}
	return ids
}

// leaders counts the latches that lead now.
func leaders(ls ...*leader.Latch) int {
	n := 0
	for _, l := range ls {
		if l.HasLeadership() {
			n++
		}
	}
	return n
}
