package leader_test

import (
	"slices"
	"strings"
)

// sortLatch orders latch node names as Curator's LeaderLatch does: by what
// follows the last "latch-", a name without it by its whole name.
func sortLatch(names []string) {
	key := func(n string) string {
		if i := strings.LastIndex(n, "latch-"); i >= 0 {
			return n[i+len("latch-"):]
		}
		return n
	}
	slices.SortStableFunc(names, func(a, b string) int { return strings.Compare(key(a), key(b)) })
}
