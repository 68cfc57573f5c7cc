package mutex

import (
	"fmt"
	"slices"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// Decision is a Driver's verdict on one sorted list of children.
type Decision struct {
	// Held: the caller's node holds the lock.
	Held bool
	// Watch is the one child to watch when not held.
	Watch string
	// HeldWhenGone: once Watch is deleted, the caller holds the lock
	// without looking again. It is true when nothing the caller must wait
	// for can remain after Watch goes: sequence numbers only grow, so no
	// node can later appear in front of the caller.
	HeldWhenGone bool
	// Ahead, if set, is a node in front of Watch whose deletion is worth a
	// new look: Watch may then be at the head, and a look made while Watch
	// still holds turns its later deletion into an immediate hand-off.
	Ahead string
}

// Driver decides who holds a lock from the children of its directory. It
// is a pure function of the names, so both Curator and this library, given
// the same children, agree on the holder.
type Driver interface {
	// Sort orders children as the lock queue, in place.
	Sort(children []string)
	// Decide judges the sorted children for the node named ours. It
	// returns ErrNodeMissing when ours is not among them.
	Decide(sorted []string, ours string) (Decision, error)
}

// StandardDriver is Curator's standard driver: the first maxLeases nodes of
// the queue hold the lock; any other node watches the node maxLeases places
// in front of it, and the one in front of that (Decision.Ahead). A mutex is
// StandardDriver(1).
func StandardDriver(maxLeases int) Driver {
	return standardDriver{maxLeases: maxLeases, lockName: zkpath.LockName}
}

type standardDriver struct {
	maxLeases int
	lockName  string
}

func (d standardDriver) Sort(children []string) { zkpath.SortNodes(children, d.lockName) }

func (d standardDriver) Decide(sorted []string, ours string) (Decision, error) {
	i := slices.Index(sorted, ours)
	if i < 0 {
		return Decision{}, fmt.Errorf("%w: %s", ErrNodeMissing, ours)
	}
	if i < d.maxLeases {
		return Decision{Held: true}, nil
	}
	watch := i - d.maxLeases
	decision := Decision{Watch: sorted[watch], HeldWhenGone: watch == 0}
	if watch > 0 {
		decision.Ahead = sorted[watch-1]
	}
	return decision, nil
}
