package watches

import "github.com/go-zookeeper/zk"

// A persistent and a recursive Watch of one path. ZooKeeper 3.6 to 3.8
// keep one mode per path and connection (see servermodes.go): whichever
// addWatch comes second replaces the other, and a recursive mode set
// after a persistent one stops its NodeChildrenChanged, a persistent one
// set after a recursive one the events below the path. So while both are
// wanted the server keeps the recursive mode alone, and the persistent
// Watches of the path are served from it, as the client's one-shot
// watches are from a mode that brings their events:
//
//   - NodeCreated, NodeDataChanged and NodeDeleted of the path itself
//     come from the recursive mode as from the persistent one;
//   - NodeChildrenChanged of the path is told at each NodeCreated and
//     NodeDeleted of a child of the path. The server sends the one
//     exactly when it sends the other: both come from one create or
//     delete of that child (a sequential one, one in a transaction, an
//     ephemeral one deleted as its session ends), in that order, with
//     nothing between; so the event takes the place the server's would.
//
// Except for a child the client may not read: the server checks a
// persistent watch's events against the ACL of the node they are of
// (CVE-2024-23944, in 3.8.4 and in patched builds), the child's for its
// creation and the path's for NodeChildrenChanged. Such a child's
// creation and deletion go untold to the persistent Watch while a
// recursive Watch of its path is open on the client; a listing shows it.
//
// A persistent addWatch written where the recursive mode is (or is about
// to be, a recursive addWatch written before it) is not sent: a read that
// changes nothing takes its place, and its answer enters the Watch. When
// the recursive mode is no longer needed and a persistent Watch is, the
// removal sets the persistent mode with an addWatch first, which replaces
// the recursive one in one step (see removesteps.go): what happened
// before it comes through the recursive mode, what happens after through
// the persistent one. A reconnect's setWatches2 carries such a path in
// its recursive list alone.
//
// Whether the server held the recursive mode when it sent a notification
// is known from the answers read before it: the server applies a
// session's requests in order, and sends the events of each change and
// the answers to the session's requests in the order it applied them.
// So the table records, as each answer that changes the data manager's
// mode of a path is read, whether that mode is now the recursive one
// (appliedRecursive), and dispatch serves the persistent Watches of the
// path from it only then. A server that keeps the modes apart (3.9 and
// later) gets both addWatches, and the table records nothing.

// Applied records, as the answer of a request is read, whether the data
// manager of the server holds the recursive mode at path after it.
func (t *Table) Applied(path string, recursive bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.appliedLocked(path, recursive)
}

// appliedLocked is applied; t.mu held.
func (t *Table) appliedLocked(path string, recursive bool) {
	if recursive {
		t.appliedRecursive[path] = struct{}{}
	} else {
		delete(t.appliedRecursive, path)
	}
}

// servedLocked reports whether the persistent Watches of path are served
// from the recursive mode now; t.mu held.
func (t *Table) servedLocked(path string) bool {
	_, ok := t.appliedRecursive[path]
	return ok
}

// persistentFor returns the persistent Watches that ev is for, and those
// of its parent that are told NodeChildrenChanged of the parent in its
// stead; t.mu held.
func (t *Table) persistentFor(ev zk.Event) (own, parents []Subscriber) {
	if ev.Type != zk.EventNodeChildrenChanged || !t.servedLocked(ev.Path) {
		own = t.persistent[ev.Path]
	}
	if (ev.Type == zk.EventNodeCreated || ev.Type == zk.EventNodeDeleted) && ev.Path != "/" {
		if parent := parentPath(ev.Path); t.servedLocked(parent) {
			parents = t.persistent[parent]
		}
	}
	return own, parents
}

// coversPersistent reports whether an addWatch of mode written now at
// the path of m would be served by the recursive mode instead.
func (m *pathModes) coversPersistent(mode Mode, apart bool) bool {
	return !apart && mode == Persistent && m.data == modeRecursive
}

// recursiveHeldLocked reports whether the server holds the recursive mode
// of path for the client and keeps it: a recursive Watch's, or a
// lingering one not being removed; t.mu held. A persistent Watch of the
// path is then served from it without a request.
func (t *Table) recursiveHeldLocked(path string) bool {
	k := Key{path, Recursive}
	if _, removing := t.removing[k]; removing {
		return false
	}
	_, lingers := t.lingering[k]
	return lingers || len(t.recursive[path]) > 0
}
