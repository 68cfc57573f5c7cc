package cache

import (
	"sort"
	"sync"

	"github.com/go-zookeeper/zk"
)

// store is the cached tree behind a lock of its own, which nothing else
// takes. The cache's goroutine is its one writer: it takes the lock to
// write, for as long as the change in memory takes and never across a
// server call or a listener, and reads without it (no one else writes).
// Readers (Get, Children, Entries, Len, from any goroutine, a listener's
// included) take it to read, so they never wait for the server.
type store struct {
	mu sync.RWMutex
	t  *tree
}

func newStore(root string) *store { return &store{t: newTree(root)} }

// get returns the entry at p.
func (s *store) get(p string) (Entry, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := s.t.find(p)
	if n == nil {
		return Entry{}, false
	}
	return n.entry(p), true
}

// children returns the sorted names of the children of p, and whether p
// is cached.
func (s *store) children(p string) ([]string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := s.t.find(p)
	if n == nil {
		return nil, false
	}
	return s.t.children(n), true
}

// entries returns every entry, sorted by path (outside the lock).
func (s *store) entries() []Entry {
	s.mu.RLock()
	out := make([]Entry, 0, s.t.size)
	s.t.walk(func(p string, n *node) { out = append(out, n.entry(p)) })
	s.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// len returns the number of nodes.
func (s *store) len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.t.size
}

// The writer's own methods: only the cache's goroutine calls them.

// find returns the node at p; its fields change only by set. The writer
// reads without the lock.
func (s *store) find(p string) *node { return s.t.find(p) }

// paths returns every cached path. The writer reads without the lock.
func (s *store) paths() []string { return s.t.paths() }

// diff compares the children of the node at p with names, a list of them
// read from the server: fresh are named and not cached, gone cached and
// not named; ok is false when p is not cached. The writer reads without
// the lock.
func (s *store) diff(p string, names []string) (fresh, gone []string, ok bool) {
	parent := s.t.find(p)
	if parent == nil {
		return nil, nil, false
	}
	listed := make(map[string]bool, len(names))
	for _, name := range names {
		listed[name] = true
		if s.t.child(parent, name) == nil {
			fresh = append(fresh, name)
		}
	}
	if x := s.t.kids[parent]; x != nil {
		x.each(func(name string, _ *node) {
			if !listed[name] {
				gone = append(gone, name)
			}
		})
	}
	return fresh, gone, true
}

// put stores n at p (see tree.put).
func (s *store) put(p string, n *node) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t.put(p, n)
}

// set changes a cached node in place: readers copy it out under the lock.
func (s *store) set(n *node, data []byte, stat zk.Stat) {
	s.mu.Lock()
	n.data, n.stat = data, stat
	s.mu.Unlock()
}

// remove removes the node at p and its subtree (see tree.remove).
func (s *store) remove(p string) []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t.remove(p)
}
