package cache

import (
	"maps"
	"slices"
	"strings"
)

// maxSorted is the most children an index keeps in a slice sorted by
// name. The slice costs 32 bytes per child, as a map of the same size at
// best, lists the children in order without sorting them, and a lookup
// is a binary search; but an insertion out of order moves the slice's
// tail (up to 32 kB here: a load inserts in order, at the end), so past
// this many children a map, whose insertions cost the same at any size,
// takes over.
const maxSorted = 1024

// index is the cached children of one node, by name. The names are here,
// not in the nodes: a lookup reads the entries it compares side by side,
// and touches one node, the one it finds.
type index struct {
	sorted []child          // by name, while byName is nil
	byName map[string]*node // once there were more than maxSorted
}

// child is a node and its name, whose first 8 bytes are also in key, so
// that a search compares numbers and reads the names of no other child
// (a node's name is not in a node, nor ever empty, nor has a NUL in it).
type child struct {
	name string
	key  uint64
	node *node
}

// nameKey is the first 8 bytes of name, big-endian, zeros after a
// shorter name: keys compare as their names' first 8 bytes do.
func nameKey(name string) uint64 {
	var k uint64
	for i := range 8 {
		k <<= 8
		if i < len(name) {
			k |= uint64(name[i])
		}
	}
	return k
}

// newIndex returns an index with room for about n children: the Stat of
// a node being loaded says how many it has.
func newIndex(n int) *index {
	if n > maxSorted {
		return &index{byName: make(map[string]*node, n)}
	}
	return &index{sorted: make([]child, 0, max(n, 1))}
}

func (x *index) len() int {
	if x.byName != nil {
		return len(x.byName)
	}
	return len(x.sorted)
}

// search returns where name is in sorted, or would be. A loop of its own:
// slices.BinarySearchFunc calls a function at each step.
func (x *index) search(name string) (int, bool) {
	k := nameKey(name)
	lo, hi := 0, len(x.sorted)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c := &x.sorted[m]; c.key < k || (c.key == k && c.name < name) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(x.sorted) && x.sorted[lo].name == name
}

// get returns the child of that name, nil if none.
func (x *index) get(name string) *node {
	if x.byName != nil {
		return x.byName[name]
	}
	if i, ok := x.search(name); ok {
		return x.sorted[i].node
	}
	return nil
}

// put adds n under name, or puts it in the place of the child of that
// name, which it returns. A name it stores is a copy, not a window on a
// path, which would keep the whole path.
func (x *index) put(name string, n *node) (replaced *node) {
	if x.byName != nil {
		replaced = x.byName[name]
		x.byName[strings.Clone(name)] = n // a map stores the key given even in place of an equal one
		return replaced
	}
	i, ok := x.search(name)
	switch {
	case ok:
		replaced, x.sorted[i].node = x.sorted[i].node, n
	case len(x.sorted) >= maxSorted:
		x.byName = make(map[string]*node, 2*maxSorted)
		for _, k := range x.sorted {
			x.byName[k.name] = k.node
		}
		x.byName[strings.Clone(name)] = n
		x.sorted = nil
	default:
		x.sorted = slices.Insert(x.sorted, i, child{strings.Clone(name), nameKey(name), n})
	}
	return replaced
}

// remove takes the child of that name out, if there is one.
func (x *index) remove(name string) {
	if x.byName != nil {
		delete(x.byName, name)
		if len(x.byName) <= maxSorted/2 { // back to a slice, which a map would never shrink to
			x.sorted = make([]child, 0, len(x.byName))
			for _, name := range slices.Sorted(maps.Keys(x.byName)) {
				x.sorted = append(x.sorted, child{name, nameKey(name), x.byName[name]})
			}
			x.byName = nil
		}
		return
	}
	i, ok := x.search(name)
	if !ok {
		return
	}
	x.sorted = slices.Delete(x.sorted, i, i+1) // clears the last slot: the node is not kept
	if c := cap(x.sorted); c > 16 && len(x.sorted) <= c/4 {
		x.sorted = slices.Clone(x.sorted)
	}
}

// each calls fn for every child: by name while the index is a slice.
func (x *index) each(fn func(name string, n *node)) {
	if x.byName != nil {
		for name, n := range x.byName {
			fn(name, n)
		}
		return
	}
	for _, k := range x.sorted {
		fn(k.name, k.node)
	}
}

// names returns the children's names, sorted.
func (x *index) names() []string {
	out := make([]string, 0, x.len())
	x.each(func(name string, _ *node) { out = append(out, name) })
	if x.byName != nil {
		slices.Sort(out)
	}
	return out
}
