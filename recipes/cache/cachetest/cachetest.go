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
// form a valid sequence: no Changed or Deleted of a path the cache does
// not hold, no Created of one it holds, each Changed to a later Mzxid,
// and Initialized once. It is safe for concurrent use.
type Sequence struct {
	root        string
	mu          sync.Mutex
	held        map[string]cache.Entry
	violations  []string
	counts      map[cache.EventType]int
	initialized int
}

// NewSequence returns an empty Sequence of a cache of root: the cache
// holds nothing yet.
func NewSequence(root string) *Sequence {
	return &Sequence{root: root, held: make(map[string]cache.Entry), counts: make(map[cache.EventType]int)}
}

// Listener returns the listener to give Cache.AddListener before Start.
func (s *Sequence) Listener() cache.Listener { return s.hear }

func (s *Sequence) hear(ev cache.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[ev.Type]++
	old, held := s.held[ev.Path]
	switch ev.Type {
	case cache.Initialized:
		s.initialized++
		if s.initialized > 1 {
			s.fail("initialized %d times", s.initialized)
		}
	case cache.Created:
		if held {
			s.fail("created %s, which the cache holds", ev.Path)
		}
		if _, ok := s.held[zkpath.Parent(ev.Path)]; !ok && ev.Path != s.root {
			s.fail("created %s before its parent", ev.Path)
		}
		s.held[ev.Path] = ev.Entry
	case cache.Changed:
		switch {
		case !held:
			s.fail("changed %s, which the cache does not hold", ev.Path)
		case ev.Entry.Stat.Mzxid <= old.Stat.Mzxid:
			s.fail("changed %s back from mzxid %d to %d", ev.Path, old.Stat.Mzxid, ev.Entry.Stat.Mzxid)
		case ev.Old.Stat.Mzxid != old.Stat.Mzxid:
			s.fail("changed %s from an old entry it never told (mzxid %d, told %d)", ev.Path, ev.Old.Stat.Mzxid, old.Stat.Mzxid)
		}
		s.held[ev.Path] = ev.Entry
	case cache.Deleted:
		if !held {
			s.fail("deleted %s, which the cache does not hold", ev.Path)
		}
		for p := range s.held {
			if zkpath.Parent(p) == ev.Path {
				s.fail("deleted %s before its child %s", ev.Path, p)
			}
		}
		delete(s.held, ev.Path)
	}
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
