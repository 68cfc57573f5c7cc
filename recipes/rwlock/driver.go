package rwlock

import (
	"fmt"
	"strings"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/mutex/lockdriver"
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

// lockNames are the names by which the queue is sorted: what follows the
// last "__READ__", then the last "__WRIT__" of what remains (Curator's).
var lockNames = []string{readName, writeName}

// sortKey is name's key in the queue.
func sortKey(name string) string { return zkpath.SortKey(name, lockNames...) }

// isWriter reports whether name is a write-lock node, as Curator tells it.
func isWriter(name string) bool { return strings.Contains(name, writeName) }

// sortQueue sorts children as the queue, in place, exactly as Curator
// does (lockdriver.SortQueue).
func sortQueue(children []string) { lockdriver.SortQueue(children, lockNames...) }

// front is what lies in front of a node in the queue.
type front struct {
	nodes, writers        int
	nearNodes, nearWriter *lockdriver.Nearest
}

// look finds what lies in front of ours. It selects rather than sorts: a
// waiter needs counts and a few names, not the whole order.
func look(children []string, ours, kind string) (front, error) {
	if !strings.Contains(ours, kind) {
		return front{}, fmt.Errorf("%w: node %s does not carry the lock name %q", ErrInvalidArgument, ours, kind)
	}
	f := front{nearNodes: lockdriver.NewNearest(handOffDepth), nearWriter: lockdriver.NewNearest(handOffDepth)}
	err := lockdriver.InFront(children, ours, lockNames, func(q lockdriver.Queued) {
		f.nodes++
		f.nearNodes.Add(q)
		if isWriter(q.Name) {
			f.writers++
			f.nearWriter.Add(q)
		}
	})
	return f, err
}

// readDriver judges a read-lock node: it holds when no writer is in front
// of it, whatever readers are. A waiter watches the writers in its way (up
// to handOffDepth), so the readers behind one writer all share its node and
// take the lock together, each on the deletion it watches, without a
// request. It watches nothing but writers, and only writers in front of it,
// so no two waiters ever wait on each other (unlike Kazoo's issue 649).
type readDriver struct{}

func (readDriver) Sort(children []string, _ string) { sortQueue(children) }

func (readDriver) Decide(children []string, ours, _ string) (lockdriver.Decision, error) {
	f, err := look(children, ours, readName)
	switch {
	case err != nil:
		return lockdriver.Decision{}, err
	case f.writers == 0:
		return lockdriver.Decision{Held: true}, nil
	}
	return lockdriver.Decision{Watch: f.nearWriter.Names(), HeldWhenGone: f.writers <= handOffDepth}, nil
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

func (writeDriver) Decide(children []string, ours, _ string) (lockdriver.Decision, error) {
	f, err := look(children, ours, writeName)
	switch {
	case err != nil:
		return lockdriver.Decision{}, err
	case f.nodes == 0:
		return lockdriver.Decision{Held: true}, nil
	}
	return lockdriver.Decision{Watch: f.nearNodes.Names(), HeldWhenGone: f.nodes <= handOffDepth && f.writers == 0}, nil
}
