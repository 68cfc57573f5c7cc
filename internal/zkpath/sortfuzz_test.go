package zkpath

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// javaLastIndexOf restates Java's String.lastIndexOf by a backward scan, so
// that the reference below shares no code with SortKey.
func javaLastIndexOf(s, sub string) int {
	for i := len(s) - len(sub); i >= 0; i-- {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// referenceSort is Curator's sort of a lock's children, restated plainly:
// fixForSorting for each lock name in turn, then a stable insertion sort by
// the keys compared as strings.
func referenceSort(names []string, lockNames []string) []string {
	key := func(s string) string {
		for _, ln := range lockNames {
			if i := javaLastIndexOf(s, ln); i >= 0 {
				s = s[i+len(ln):]
			}
		}
		return s
	}
	out := slices.Clone(names)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && key(out[j]) < key(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// fuzzLockNames are the lock name sets the recipes sort by.
var fuzzLockNames = [][]string{nil, {LockName}, {ReadLockName, WriteLockName}, {LeaseName}}

func FuzzSortNodes(f *testing.F) {
	f.Add("_c_"+testID+"-lock-0000000002\nlock-0000000001\nforeign\n-x", uint8(1))
	f.Add("__READ__0000000003\n__WRIT__0000000001\n_c_"+testID+"-__READ__0000000002", uint8(2))
	f.Add("lease-0000000009\nlease-0000000010\nlease-", uint8(3))
	f.Add("b\na\nb\na", uint8(0))
	f.Fuzz(func(t *testing.T, joined string, which uint8) {
		names := strings.Split(joined, "\n")
		if len(names) > 64 {
			names = names[:64]
		}
		lockNames := fuzzLockNames[int(which)%len(fuzzLockNames)]
		input := slices.Clone(names)

		sorted := SortedNodes(names, lockNames...)
		require.Equal(t, input, names, "SortedNodes leaves its input alone")
		require.Equal(t, referenceSort(names, lockNames), sorted, "Curator's order")

		inPlace := slices.Clone(names)
		SortNodes(inPlace, lockNames...)
		require.Equal(t, sorted, inPlace, "SortNodes and SortedNodes agree")
		SortNodes(inPlace, lockNames...)
		require.Equal(t, sorted, inPlace, "sorting is idempotent")

		require.ElementsMatch(t, names, sorted, "a permutation")
		for i := 1; i < len(sorted); i++ {
			require.LessOrEqual(t, SortKey(sorted[i-1], lockNames...), SortKey(sorted[i], lockNames...))
		}
	})
}
