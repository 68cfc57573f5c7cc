package cache

import (
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// tree is the cached subtree: its nodes, and each parent's children by
// name. No path is kept: a path is the way down to its node, and a node's
// path is built when someone asks for it. Of a tree of 10,000 nodes of
// 100-byte values a node costs about 140 bytes beyond its value: the node
// (96), its name and place in its parent's index (32, and the name's
// bytes), the allocator's rounding of the value (12).
type tree struct {
	root string           // the cache's path
	top  *node            // the root's node; nil while it is not cached
	kids map[*node]*index // the children of each node that has some cached
	size int
}

// node is a cached node. Its name is in its parent's index and its
// children in tree.kids, not here: that keeps it at 96 bytes, a size
// class of Go's allocator (a pointer more would take it to 112).
type node struct {
	data []byte
	stat zk.Stat
}

func (n *node) entry(path string) Entry { return Entry{Path: path, Data: n.data, Stat: n.stat} }

func newTree(root string) *tree {
	return &tree{root: root, kids: make(map[*node]*index)}
}

// find returns the node at p, nil if it is not cached (or p is not a
// path in the tree's canonical form: no empty name, no trailing slash).
func (t *tree) find(p string) *node {
	rest, ok := t.below(p)
	if !ok {
		return nil
	}
	n := t.top
	for n != nil && rest != "" {
		rest = rest[1:] // the '/'
		name := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			name, rest = rest[:i], rest[i:]
		} else {
			rest = ""
		}
		n = t.child(n, name)
	}
	return n
}

// below returns what p adds to the root: "" for the root itself, else a
// string that starts with '/'; false if p is not the root or below it.
func (t *tree) below(p string) (string, bool) {
	switch {
	case p == t.root:
		return "", true
	case t.root == "/":
		return p, strings.HasPrefix(p, "/")
	case strings.HasPrefix(p, t.root) && len(p) > len(t.root) && p[len(t.root)] == '/':
		return p[len(t.root):], true
	}
	return "", false
}

// child returns n's cached child of that name, nil if none.
func (t *tree) child(n *node, name string) *node {
	if x := t.kids[n]; x != nil && name != "" {
		return x.get(name)
	}
	return nil
}

// put stores n at path p, in the place of the node there if any (whose
// children become n's); false if p's parent is not cached, and then n
// is not stored.
func (t *tree) put(p string, n *node) bool {
	if p == t.root {
		t.replace(t.top, n)
		t.top = n
		return true
	}
	parentPath, name := zkpath.Split(p)
	parent := t.find(parentPath)
	if parent == nil {
		return false
	}
	x := t.kids[parent]
	if x == nil {
		x = newIndex(int(parent.stat.NumChildren))
		t.kids[parent] = x
	}
	t.replace(x.put(name, n), n)
	return true
}

// replace gives old's children to n; old nil: n is new.
func (t *tree) replace(old, n *node) {
	if old == nil {
		t.size++
		return
	}
	if x := t.kids[old]; x != nil {
		delete(t.kids, old)
		t.kids[n] = x
	}
}

// remove removes the node at p and its descendants and returns them,
// deepest first: the order in which the server deleted them.
func (t *tree) remove(p string) []Entry {
	n := t.find(p)
	if n == nil {
		return nil
	}
	var gone []Entry
	t.cut(n, p, &gone)
	if n == t.top {
		t.top = nil
		return gone
	}
	parentPath, name := zkpath.Split(p)
	parent := t.find(parentPath)
	if x := t.kids[parent]; x != nil {
		x.remove(name)
		if x.len() == 0 {
			delete(t.kids, parent)
		}
	}
	return gone
}

// cut forgets n, at path p, and its descendants, and adds them to gone,
// children first.
func (t *tree) cut(n *node, p string, gone *[]Entry) {
	if x := t.kids[n]; x != nil {
		x.each(func(name string, k *node) { t.cut(k, zkpath.Join(p, name), gone) })
		delete(t.kids, n)
	}
	*gone = append(*gone, n.entry(p))
	t.size--
}

// children returns the sorted names of n's cached children.
func (t *tree) children(n *node) []string {
	if x := t.kids[n]; x != nil {
		return x.names()
	}
	return []string{}
}

// walk calls fn for every cached node with its path, parents before
// their children. The paths are built in one string (two allocations for
// the whole tree, not one per node), which a caller keeping any of them
// keeps whole.
func (t *tree) walk(fn func(p string, n *node)) {
	if t.top == nil {
		return
	}
	total := 0
	t.measure(t.top, len(t.root), &total)
	var b strings.Builder
	b.Grow(total)
	t.build(t.top, t.root, &b, fn)
}

// measure adds to total the lengths of the paths of the descendants of n,
// whose path is l bytes long.
func (t *tree) measure(n *node, l int, total *int) {
	x := t.kids[n]
	if x == nil {
		return
	}
	sep := 1
	if l == 1 { // n is "/"
		sep = 0
	}
	x.each(func(name string, k *node) {
		kl := l + sep + len(name)
		*total += kl
		t.measure(k, kl, total)
	})
}

// build calls fn for n, at path p, and its descendants, whose paths it
// writes to b, which has room for all of them. A Builder never changes
// what it has written, so a path taken from b.String() stays as it is.
func (t *tree) build(n *node, p string, b *strings.Builder, fn func(string, *node)) {
	fn(p, n)
	x := t.kids[n]
	if x == nil {
		return
	}
	x.each(func(name string, k *node) {
		from := b.Len()
		b.WriteString(p)
		if p != "/" {
			b.WriteByte('/')
		}
		b.WriteString(name)
		t.build(k, b.String()[from:], b, fn)
	})
}

// paths returns every cached path.
func (t *tree) paths() []string {
	out := make([]string, 0, t.size)
	t.walk(func(p string, _ *node) { out = append(out, p) })
	return out
}

// depth is how far p lies below root: 0 for the root itself.
func depth(root, p string) int {
	if p == root {
		return 0
	}
	rest := p[len(root):]
	if root == "/" {
		rest = p
	}
	return strings.Count(rest, "/")
}

// within tells whether p is root or below it.
func within(root, p string) bool {
	if root == "/" || p == root {
		return strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, root) && len(p) > len(root) && p[len(root)] == '/'
}
