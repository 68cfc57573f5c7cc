package cache

import (
	"path"

	"github.com/go-zookeeper/zk"
)

// EventType says what happened to a cached node.
type EventType int

const (
	// Created: a node came into the cache, at the first load or later.
	Created EventType = iota + 1
	// Changed: a cached node's data changed (its Mzxid moved).
	Changed
	// Deleted: a cached node went. Its descendants are deleted first.
	Deleted
	// Initialized: the first complete load is done; it comes once, after
	// the Created events of the nodes the load found.
	Initialized
)

// String returns the event type's name in lower case, as logs print it.
func (t EventType) String() string {
	switch t {
	case Created:
		return "created"
	case Changed:
		return "changed"
	case Deleted:
		return "deleted"
	case Initialized:
		return "initialized"
	}
	return "unknown"
}

// Entry is a cached node: its path (relative to the client's namespace),
// its data and its Stat, as of the node's last read. Data is shared with
// the cache and with listeners: do not modify it.
type Entry struct {
	Path string
	Data []byte
	Stat zk.Stat
}

// Event is one change of the cache, as Curator's CuratorCacheListener
// hears them. Entry is the node as it is now (zero for Deleted and
// Initialized); Old is the node before (for Changed and Deleted).
type Event struct {
	Type  EventType
	Path  string
	Entry Entry
	Old   Entry
}

// Listener hears the events of a cache, one at a time and in order,
// on the cache's own goroutine, after the cache has applied the event:
// Cache.Get in a listener sees the change. A listener that blocks holds
// the cache back (the client is never held back).
type Listener func(Event)

// ForChildren keeps of fn's events those of parent's children and
// Initialized: the events of Curator's PathChildrenCache.
func ForChildren(parent string, fn Listener) Listener {
	return func(ev Event) {
		if ev.Type == Initialized || (ev.Path != parent && path.Dir(ev.Path) == parent) {
			fn(ev)
		}
	}
}

// ForNode keeps of fn's events those of the node at p and Initialized:
// the events of Curator's NodeCache.
func ForNode(p string, fn Listener) Listener {
	return func(ev Event) {
		if ev.Type == Initialized || ev.Path == p {
			fn(ev)
		}
	}
}
