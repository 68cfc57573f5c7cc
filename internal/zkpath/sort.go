package zkpath

import (
	"slices"
	"strings"
)

// SortKey returns the key by which lock recipes order name: Curator's
// fixForSorting applied for each of lockNames in turn, each to the result
// of the one before. fixForSorting keeps what follows the last occurrence
// of the lock name, and the whole string if the lock name does not occur.
// With ReadLockName, WriteLockName it is the key of Curator's read/write
// lock driver. SortKey returns a substring of name and does not allocate.
func SortKey(name string, lockNames ...string) string {
	for _, ln := range lockNames {
		if i := strings.LastIndex(name, ln); i >= 0 {
			name = name[i+len(ln):]
		}
	}
	return name
}

// keyedName pairs a child name with its precomputed sort key.
type keyedName struct {
	key, name string
}

// stackSortLen is the largest list SortNodes sorts without allocating.
const stackSortLen = 32

// SortNodes sorts names in place by SortKey, comparing keys bytewise, as
// Curator sorts the children of a lock directory. The sort is stable, so
// names with equal keys keep the order the server returned. Children
// without a lock name sort by their whole name, which puts names starting
// with a letter or '_' after every sequence number.
func SortNodes(names []string, lockNames ...string) {
	if len(names) < 2 {
		return
	}
	// Compute each key once; the comparator then only compares strings.
	var buf [stackSortLen]keyedName
	keyed := buf[:0]
	if len(names) > len(buf) {
		keyed = make([]keyedName, 0, len(names))
	}
	for _, n := range names {
		keyed = append(keyed, keyedName{key: SortKey(n, lockNames...), name: n})
	}
	slices.SortStableFunc(keyed, func(a, b keyedName) int {
		return strings.Compare(a.key, b.key)
	})
	for i := range keyed {
		names[i] = keyed[i].name
	}
}

// SortedNodes returns a sorted copy of names, ordered as SortNodes orders
// them; names itself is left unchanged.
func SortedNodes(names []string, lockNames ...string) []string {
	sorted := slices.Clone(names)
	SortNodes(sorted, lockNames...)
	return sorted
}
