package cache

import (
	"sort"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// tree is the cached subtree: every node by path, and the names of each
// node's cached children. A child's name is a substring of its path, so
// the index costs no string of its own.
type tree struct {
	nodes map[string]*node
	kids  map[string]map[string]struct{} // by parent path; only parents with children
}

// node is a cached node; its path is its key in tree.nodes.
type node struct {
	data []byte
	stat zk.Stat
}

func (n *node) entry(path string) Entry { return Entry{Path: path, Data: n.data, Stat: n.stat} }

func newTree() *tree {
	return &tree{nodes: make(map[string]*node), kids: make(map[string]map[string]struct{})}
}

// put stores n at path, linking it to its parent (which the caller has
// checked is cached, unless path is the root).
func (t *tree) put(root, path string, n *node) {
	if _, ok := t.nodes[path]; !ok && path != root {
		parent, name := zkpath.Split(path)
		set := t.kids[parent]
		if set == nil {
			set = make(map[string]struct{})
			t.kids[parent] = set
		}
		set[name] = struct{}{}
	}
	t.nodes[path] = n
}

// removeSubtree removes p and its descendants and returns them, deepest
// first: the order in which the server deleted them.
func (t *tree) removeSubtree(root, p string) []Entry {
	var gone []Entry
	var walk func(string)
	walk = func(q string) {
		for name := range t.kids[q] {
			walk(zkpath.Join(q, name))
		}
		delete(t.kids, q)
		if n, ok := t.nodes[q]; ok {
			gone = append(gone, n.entry(q))
			delete(t.nodes, q)
		}
	}
	walk(p)
	if p != root {
		parent, name := zkpath.Split(p)
		if set := t.kids[parent]; set != nil {
			delete(set, name)
			if len(set) == 0 {
				delete(t.kids, parent)
			}
		}
	}
	return gone
}

// children returns the sorted names of p's cached children.
func (t *tree) children(p string) []string {
	set := t.kids[p]
	names := make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// paths returns every cached path.
func (t *tree) paths() []string {
	out := make([]string, 0, len(t.nodes))
	for p := range t.nodes {
		out = append(out, p)
	}
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
