package mutex_test

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestContention_FanOut measures what a contended acquisition costs with
// 8, 64 and 256 waiters, each its own client (as separate processes
// would be), through the directory watch and through one-shot watches:
// requests by type, watch notifications (one per event and connection: a
// directory watch tells every waiter of every create and delete), and
// acquisitions per second, each the median of three runs. It logs the
// figures and asserts nothing timed: they decide the engine's design
// (see waitWatched).
func TestContention_FanOut(t *testing.T) {
	if os.Getenv("ZKR_FANOUT") == "" {
		t.Skip("a measurement, not a check of the build: starts hundreds of clients, three times each; run with ZKR_FANOUT=1")
	}
	for _, n := range []int{8, 64, 256} {
		t.Run(fmt.Sprintf("%d waiters", n), func(t *testing.T) {
			// The paths take turns, so that neither always runs on a
			// server still busy with the other's clients.
			runs := make([][]contention, len(waitPaths))
			for range 3 {
				for i, wp := range waitPaths {
					runs[i] = append(runs[i], contend(t, n, int64(max(1000, 4*n)), wp.old))
				}
			}
			for i, wp := range waitPaths {
				t.Logf("%s: %s", wp.name, medians(runs[i]))
			}
			if n > 8 {
				// Behind a long queue, waiters keep to one-shot watches
				// (shortQueue): no fan-out to every waiter.
				watched, oneShot := runs[0][1].notifications, runs[1][1].notifications
				assert.LessOrEqual(t, watched, 1.5*oneShot, "notifications per acquisition behind %d waiters", n)
			}
		})
	}
}

// medians formats the median of every figure of runs.
func medians(runs []contention) string {
	median := func(f func(contention) float64) float64 {
		xs := make([]float64, len(runs))
		for i, r := range runs {
			xs[i] = f(r)
		}
		sort.Float64s(xs)
		return xs[len(xs)/2]
	}
	ops := make(map[int32]bool)
	for _, r := range runs {
		for op := range r.requests {
			ops[op] = true
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "requests %.2f (", median(contention.total))
	for _, op := range slices.Sorted(maps.Keys(ops)) {
		fmt.Fprintf(&b, " op%d=%.2f", op, median(func(c contention) float64 { return c.requests[op] }))
	}
	fmt.Fprintf(&b, " ) notifications %.2f, %.0f acquisitions/s",
		median(func(c contention) float64 { return c.notifications }),
		median(func(c contention) float64 { return c.perSecond }))
	return b.String()
}
