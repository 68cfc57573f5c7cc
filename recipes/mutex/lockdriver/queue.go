package lockdriver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// The queue of a lock: what every Driver of the engine shares, so that the
// mutex's and the read/write lock's drivers order and judge children by
// one rule.
//
// A view of the queue is sorted as Curator sorts it: by sort key (what
// follows the last of the lock's names), a stable sort, so that equal keys
// keep the order in which the server listed them. A verdict cannot depend
// on the listing, so the judges break a tie by name: of two nodes with one
// key, the one with the lower name is in front. Keys tie only where a node
// keeps another's place (the read/write lock's downgrade: both nodes hold
// already and are never judged again), or for foreign nodes whose names
// mimic a sequence; there the name keeps two of them from both holding.

// SortQueue orders children as the queue of a lock with the given names,
// in place, exactly as Curator does (see Driver.Sort).
func SortQueue(children []string, lockNames ...string) {
	zkpath.SortNodes(children, lockNames...)
}

// Queued is a child of a lock's directory and its sort key.
type Queued struct {
	Key, Name string
}

// before orders queued children as the judges do: by key, equal keys by
// name.
func (a Queued) before(b Queued) bool {
	if c := strings.Compare(a.Key, b.Key); c != 0 {
		return c < 0
	}
	return a.Name < b.Name
}

// InFront calls in, in listing order, for each child that stands in front
// of ours in the queue of a lock with the given names: by key, equal keys
// by name. It selects rather than sorts: a waiter deep in a long queue
// needs counts and a few names, not the whole order. It fails with
// ErrNodeMissing when ours is not among children, and with an error
// wrapping ErrInvalidArgument when ours carries none of lockNames: such a
// node is never judged to hold.
func InFront(children []string, ours string, lockNames []string, in func(Queued)) error {
	if !slices.ContainsFunc(lockNames, func(n string) bool { return strings.Contains(ours, n) }) {
		return fmt.Errorf("%w: node %s does not carry the lock name %q", ErrInvalidArgument, ours, strings.Join(lockNames, `" or "`))
	}
	if !slices.Contains(children, ours) {
		return fmt.Errorf("%w: %s", ErrNodeMissing, ours)
	}
	us := Queued{Key: zkpath.SortKey(ours, lockNames...), Name: ours}
	for _, name := range children {
		if q := (Queued{Key: zkpath.SortKey(name, lockNames...), Name: name}); q.before(us) {
			in(q)
		}
	}
	return nil
}

// Nearest keeps the nearest few of the children it is shown: the last
// ones in queue order, at most its size.
type Nearest struct {
	size int
	near []Queued // ascending
}

// NewNearest returns a Nearest that keeps at most size children.
func NewNearest(size int) *Nearest { return &Nearest{size: size} }

// Add shows q to s.
func (s *Nearest) Add(q Queued) {
	if s.near == nil {
		s.near = make([]Queued, 0, s.size) // not before: most queues are empty
	}
	if len(s.near) == s.size {
		if s.size == 0 || !s.near[0].before(q) {
			return
		}
		s.near = slices.Delete(s.near, 0, 1) // drop the farthest
	}
	i, _ := slices.BinarySearchFunc(s.near, q, func(e, t Queued) int {
		if e.before(t) {
			return -1
		}
		return 1
	})
	s.near = slices.Insert(s.near, i, q)
}

// Len returns how many children s keeps.
func (s *Nearest) Len() int { return len(s.near) }

// Names returns the names of the children s keeps, in queue order.
func (s *Nearest) Names() []string {
	names := make([]string, len(s.near))
	for i, q := range s.near {
		names[i] = q.Name
	}
	return names
}
