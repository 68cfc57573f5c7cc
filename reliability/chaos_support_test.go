package reliability_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/reliability/internal/chaos"
)

// holderNames returns the Holder of each client's workers: "go-<i>".
func holderNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("go-%d", i)
	}
	return names
}

// droppedReplies closes every proxy and counts the answers they swallowed,
// in all and by request.
func droppedReplies(links [][]chaos.Link) (int, map[string]int) {
	total, by := 0, map[string]int{}
	for _, ls := range links {
		for _, l := range ls {
			p := l.(*zktest.Proxy)
			n := p.DroppedReplies()
			total += n
			for name, op := range map[string]int32{"set": zktest.OpSetData, "multi": zktest.OpMulti, "auth": zktest.OpSetAuth} {
				by[name] += p.DroppedRepliesOf(op)
				n -= p.DroppedRepliesOf(op)
			}
			by["create"] += n
			p.Close()
		}
	}
	return total, by
}

// workersAsRunners returns workers as runners.
func workersAsRunners(workers []*chaos.Worker) []runner {
	out := make([]runner, len(workers))
	for i, w := range workers {
		out[i] = w
	}
	return out
}

// waitNoOrphans waits until no ephemeral node is left under root, and
// returns those still there after orphanTimeout.
func waitNoOrphans(t *testing.T, observer *framework.Client, root string) []string {
	var orphans []string
	deadline := time.Now().Add(orphanTimeout)
	for {
		orphans = ephemerals(t, observer, root)
		if len(orphans) == 0 || time.Now().After(deadline) {
			return orphans
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ephemerals lists every ephemeral node under path, depth first.
func ephemerals(t *testing.T, c *framework.Client, path string) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	children, _, err := c.Children(ctx, path)
	if err != nil {
		require.ErrorIs(t, err, zk.ErrNoNode)
		return nil
	}
	var out []string
	for _, name := range children {
		child := zkpath.Join(path, name)
		ok, stat, err := c.Exists(ctx, child)
		require.NoError(t, err)
		if ok && stat.EphemeralOwner != 0 {
			out = append(out, fmt.Sprintf("%s (session %#x)", child, stat.EphemeralOwner))
		}
		out = append(out, ephemerals(t, c, child)...)
	}
	return out
}

// leakedGoroutines waits for the goroutine count to fall back to baseline,
// and returns by how much it stays above; it logs the stacks if it does.
func leakedGoroutines(t *testing.T, baseline int) int {
	deadline := time.Now().Add(goroutineTimeout)
	for {
		n := runtime.NumGoroutine()
		if n <= baseline {
			return 0
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
			t.Logf("chaos: %d goroutines, %d before the run:\n%s", n, baseline, b.String())
			return n - baseline
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// chaosDuration reads CHAOS_DURATION (default 2m).
func chaosDuration(t *testing.T) time.Duration {
	s := os.Getenv("CHAOS_DURATION")
	if s == "" {
		return defaultChaosRun
	}
	d, err := time.ParseDuration(s)
	require.NoError(t, err, "CHAOS_DURATION")
	require.Positive(t, d, "CHAOS_DURATION")
	return d
}

// chaosSeed reads CHAOS_SEED, or picks one from the clock.
func chaosSeed(t *testing.T) uint64 {
	s := os.Getenv("CHAOS_SEED")
	if s == "" {
		return uint64(time.Now().UnixNano())
	}
	seed, err := strconv.ParseUint(s, 10, 64)
	require.NoError(t, err, "CHAOS_SEED")
	return seed
}

// reportPath is CHAOS_REPORT, or a file in the test's temporary directory.
func reportPath(t *testing.T) string {
	if p := os.Getenv("CHAOS_REPORT"); p != "" {
		return p
	}
	return filepath.Join(t.TempDir(), "chaos-report.json")
}

// leaveElections closes the participants that stay in their election
// between holds (the latches), so that the run leaves no node behind.
func leaveElections(t *testing.T, workers []*chaos.Worker) {
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	for _, w := range workers {
		if p, ok := w.Locker.(interface{ Close(context.Context) error }); ok {
			assert.NoError(t, p.Close(ctx), "%s leaves the %s election", w.Holder, w.Recipe)
		}
	}
}
