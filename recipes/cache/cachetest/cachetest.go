// Package cachetest checks a cache.Cache against the server, for tests of
// code that keeps a cache: its events, path by path, and its tree, node by
// node. The cache's own tests and the project's chaos run use it.
package cachetest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
)

// Sequence is a cache listener that checks that the events of each path
// form a valid sequence, one the server's history allows: no Changed or
// Deleted of a path the cache does not hold, no Created of one it holds,
// a parent's Created before its children's and its Deleted after
// theirs, each Changed to a later Mzxid of the same incarnation (Czxid),
// each Deleted of the incarnation held, and Initialized once.
//
// An incarnation told deleted is gone for good on the server: a Created
// of a path at or before the Czxid of its last Deleted (the Deleted was
// not the server's, or the Created is of an older incarnation) breaks
// the rules, as does a child created before the incarnation of its
// parent that the cache holds (the server never had it there). Replaying
// the events from nothing gives Held, which a test compares with the
// server. It is safe for concurrent use.
type Sequence struct {
	root        string
	mu          sync.Mutex
	held        map[string]cache.Entry
	gone        map[string]int64 // by path, the Czxid of its last Deleted
	violations  []string
	counts      map[cache.EventType]int
	initialized int
}

// NewSequence returns an empty Sequence of a cache of root: the cache
// holds nothing yet.
func NewSequence(root string) *Sequence {
	return &Sequence{root: root, held: make(map[string]cache.Entry), gone: make(map[string]int64), counts: make(map[cache.EventType]int)}
}

// Listener returns the listener to give Cache.AddListener before Start.
func (s *Sequence) Listener() cache.Listener { return s.hear }

func (s *Sequence) hear(ev cache.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[ev.Type]++
	switch ev.Type {
	case cache.Initialized:
		s.initialized++
		if s.initialized > 1 {
			s.fail("initialized %d times", s.initialized)
		}
	case cache.Created:
		s.created(ev)
	case cache.Changed:
		s.changed(ev)
	case cache.Deleted:
		s.deleted(ev)
	}
}

func (s *Sequence) created(ev cache.Event) {
	czxid := ev.Entry.Stat.Czxid
	if _, held := s.held[ev.Path]; held {
		s.fail("created %s, which the cache holds", ev.Path)
	}
	if gone, ok := s.gone[ev.Path]; ok && czxid <= gone {
		s.fail("created %s at czxid %d after telling its incarnation of czxid %d deleted", ev.Path, czxid, gone)
	}
	if ev.Path != s.root {
		parent, ok := s.held[zkpath.Parent(ev.Path)]
		switch {
		case !ok:
			s.fail("created %s before its parent", ev.Path)
		case czxid < parent.Stat.Czxid:
			s.fail("created %s (czxid %d) under a later incarnation of its parent (czxid %d)", ev.Path, czxid, parent.Stat.Czxid)
		}
	}
	s.held[ev.Path] = ev.Entry
}

func (s *Sequence) changed(ev cache.Event) {
	old, held := s.held[ev.Path]
	switch {
	case !held:
		s.fail("changed %s, which the cache does not hold", ev.Path)
	case ev.Entry.Stat.Czxid != old.Stat.Czxid:
		s.fail("changed %s from the incarnation of czxid %d to that of %d", ev.Path, old.Stat.Czxid, ev.Entry.Stat.Czxid)
	case ev.Entry.Stat.Mzxid <= old.Stat.Mzxid:
		s.fail("changed %s back from mzxid %d to %d", ev.Path, old.Stat.Mzxid, ev.Entry.Stat.Mzxid)
	case ev.Old.Stat.Mzxid != old.Stat.Mzxid:
		s.fail("changed %s from an old entry it never told (mzxid %d, told %d)", ev.Path, ev.Old.Stat.Mzxid, old.Stat.Mzxid)
	}
	s.held[ev.Path] = ev.Entry
}

func (s *Sequence) deleted(ev cache.Event) {
	old, held := s.held[ev.Path]
	switch {
	case !held:
		s.fail("deleted %s, which the cache does not hold", ev.Path)
	case ev.Old.Stat.Czxid != old.Stat.Czxid:
		s.fail("deleted %s of czxid %d, holding that of %d", ev.Path, ev.Old.Stat.Czxid, old.Stat.Czxid)
	}
	for p := range s.held {
		if zkpath.Parent(p) == ev.Path && p != ev.Path {
			s.fail("deleted %s before its child %s", ev.Path, p)
		}
	}
	if held {
		s.gone[ev.Path] = max(s.gone[ev.Path], old.Stat.Czxid)
	}
	delete(s.held, ev.Path)
}

func (s *Sequence) fail(format string, args ...any) {
	s.violations = append(s.violations, fmt.Sprintf(format, args...))
}

// Violations returns what broke the rules, in order.
func (s *Sequence) Violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.violations...)
}

// Count returns how many events of typ were heard.
func (s *Sequence) Count(typ cache.EventType) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[typ]
}

// Held returns the tree the events describe, by path.
func (s *Sequence) Held() map[string]cache.Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]cache.Entry, len(s.held))
	for p, e := range s.held {
		out[p] = e
	}
	return out
}

// Divergence is a node on which a cache and the server disagree.
type Divergence struct {
	Path string
	What string
}

// String returns the divergence as "path: what".
func (d Divergence) String() string { return d.Path + ": " + d.What }

// Compare reads the subtree at root from the server (to maxDepth levels
// below it; negative: all) and returns where entries differ from it:
// missing or extra nodes, another version or creation, other data
// (unless withData is false).
func Compare(ctx context.Context, client *framework.Client, root string, maxDepth int, withData bool, entries []cache.Entry) ([]Divergence, error) {
	server, err := Read(ctx, client, root, maxDepth)
	if err != nil {
		return nil, err
	}
	var out []Divergence
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		seen[e.Path] = true
		s, ok := server[e.Path]
		switch {
		case !ok:
			out = append(out, Divergence{e.Path, "cached, not on the server"})
		case s.Stat.Czxid != e.Stat.Czxid:
			out = append(out, Divergence{e.Path, fmt.Sprintf("czxid %d, server %d", e.Stat.Czxid, s.Stat.Czxid)})
		case s.Stat.Version != e.Stat.Version || s.Stat.Mzxid != e.Stat.Mzxid:
			out = append(out, Divergence{e.Path, fmt.Sprintf("version %d, server %d", e.Stat.Version, s.Stat.Version)})
		case withData && string(s.Data) != string(e.Data):
			out = append(out, Divergence{e.Path, fmt.Sprintf("data %q, server %q", e.Data, s.Data)})
		}
	}
	for p := range server {
		if !seen[p] {
			out = append(out, Divergence{p, "on the server, not cached"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Read reads the subtree at root, node by node, to maxDepth levels below
// it (negative: all).
func Read(ctx context.Context, client *framework.Client, root string, maxDepth int) (map[string]cache.Entry, error) {
	out := make(map[string]cache.Entry)
	type item struct {
		path  string
		depth int
	}
	queue := []item{{root, 0}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		data, stat, err := client.Get(ctx, it.path)
		if err != nil {
			if isNoNode(err) {
				continue
			}
			return nil, err
		}
		out[it.path] = cache.Entry{Path: it.path, Data: data, Stat: *stat}
		if maxDepth >= 0 && it.depth >= maxDepth {
			continue
		}
		names, _, err := client.Children(ctx, it.path)
		if err != nil {
			if isNoNode(err) {
				continue
			}
			return nil, err
		}
		for _, n := range names {
			queue = append(queue, item{zkpath.Join(it.path, n), it.depth + 1})
		}
	}
	return out, nil
}

func isNoNode(err error) bool { return errors.Is(err, zk.ErrNoNode) }
