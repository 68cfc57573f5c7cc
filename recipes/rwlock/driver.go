package rwlock

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// The names of the two kinds of node, which share one directory and one
// queue: Curator's "__READ__" and "__WRIT__".
const (
	readName  = zkpath.ReadLockName
	writeName = zkpath.WriteLockName
)

// handOffDepth is how many nodes (for a writer) or writers (for a reader)
// in its way a waiter watches at most. With no more in its way, it holds
// the moment the last of them is deleted, without looking again; with
// more, it watches the nearest handOffDepth and looks again when one goes,
// before its turn.
const handOffDepth = 2

// sortKey is Curator's key for the read/write lock: what follows the last
// "__READ__", then the last "__WRIT__" of what remains.
func sortKey(name string) string { return zkpath.SortKey(name, readName, writeName) }

// isWriter reports whether name is a write-lock node, as Curator tells it.
func isWriter(name string) bool { return strings.Contains(name, writeName) }

// entry is a child and its sort key.
type entry struct{ key, name string }

// before orders entries as the queue: by key, equal keys by name. Keys tie
// only for a downgraded read node and its writer's node, which are never
// in each other's way (the write node held before the read node was made,
// and the read node holds as it is made); for a waiter behind them, both
// are in its way, and the name only makes the choice of the nearest
// deterministic. The views (sortQueue) keep the server's order for the
// tie instead, as Curator does.
func (a entry) before(b entry) bool {
	if c := strings.Compare(a.key, b.key); c != 0 {
		return c < 0
	}
	return a.name < b.name
}

// sortQueue sorts children as the queue, in place, exactly as Curator
// does: a stable sort by sort key, so that equal keys (a downgraded read
// node and its writer's node) keep the order in which the server listed
// them. Sorting ties by name would show Curator and Go different queues.
func sortQueue(children []string) { zkpath.SortNodes(children, readName, writeName) }

// nearest keeps the handOffDepth latest entries it is given, in queue order.
type nearest struct {
	e [handOffDepth]entry
	n int
}

func (s *nearest) add(e entry) {
	if s.n == len(s.e) {
		if !s.e[0].before(e) {
			return
		}
		copy(s.e[:], s.e[1:]) // drop the farthest
		s.n--
	}
	i := s.n
	for i > 0 && e.before(s.e[i-1]) {
		s.e[i] = s.e[i-1]
		i--
	}
	s.e[i] = e
	s.n++
}

func (s *nearest) names() []string {
	names := make([]string, s.n)
	for i := range names {
		names[i] = s.e[i].name
	}
	return names
}

// front is what lies in front of a node in the queue.
type front struct {
	nodes, writers        int
	nearNodes, nearWriter nearest
}

// look finds what lies in front of ours. It selects rather than sorts: a
// waiter needs counts and a few names, not the whole order.
func look(children []string, ours, kind string) (front, error) {
	if !strings.Contains(ours, kind) {
		return front{}, fmt.Errorf("%w: node %s does not carry the lock name %q", ErrInvalidArgument, ours, kind)
	}
	if !slices.Contains(children, ours) {
		return front{}, fmt.Errorf("%w: %s", mutex.ErrNodeMissing, ours)
	}
	key := sortKey(ours)
	var f front
	for _, name := range children {
		e := entry{sortKey(name), name}
		if e.key >= key {
			continue // behind us, or our tie, which is never in our way
		}
		f.nodes++
		f.nearNodes.add(e)
		if isWriter(name) {
			f.writers++
			f.nearWriter.add(e)
		}
	}
	return f, nil
}

// readDriver judges a read-lock node: it holds when no writer is in front
// of it, whatever readers are. A waiter watches the writers in its way (up
// to handOffDepth), so the readers behind one writer all share its node and
// take the lock together, each on the deletion it watches, without a
// request. It watches nothing but writers, and only writers in front of it,
// so no two waiters ever wait on each other (unlike Kazoo's issue 649).
type readDriver struct{}

func (readDriver) Sort(children []string, _ string) { sortQueue(children) }

func (readDriver) Decide(children []string, ours, _ string) (mutex.Decision, error) {
	f, err := look(children, ours, readName)
	switch {
	case err != nil:
		return mutex.Decision{}, err
	case f.writers == 0:
		return mutex.Decision{Held: true}, nil
	}
	return mutex.Decision{Watch: f.nearWriter.names(), HeldWhenGone: f.writers <= handOffDepth}, nil
}

// writeDriver judges a write-lock node: it holds when first in the queue.
// A waiter watches the nodes in its way (up to handOffDepth), reader or
// writer, as the mutex does. It holds on their deletion without another
// look only when they are all readers: a writer in front may downgrade
// once it holds, and its read node then appears in front of ours, at the
// writer's place, before the writer's own node goes (Curator's
// CURATOR-621). So a writer behind a writer looks once more, one request,
// when that writer's node is deleted.
type writeDriver struct{}

func (writeDriver) Sort(children []string, _ string) { sortQueue(children) }

func (writeDriver) Decide(children []string, ours, _ string) (mutex.Decision, error) {
	f, err := look(children, ours, writeName)
	switch {
	case err != nil:
		return mutex.Decision{}, err
	case f.nodes == 0:
		return mutex.Decision{Held: true}, nil
	}
	return mutex.Decision{Watch: f.nearNodes.names(), HeldWhenGone: f.nodes <= handOffDepth && f.writers == 0}, nil
}
