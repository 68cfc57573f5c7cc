package mutex

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// MaxWatch is the most nodes a Decision may name in Watch.
const MaxWatch = 3

// Decision is a Driver's verdict on one sorted list of children.
type Decision struct {
	// Held: the caller's node holds the lock.
	Held bool
	// Watch names the children to watch when not held, at most MaxWatch.
	Watch []string
	// HeldWhenGone: once every node in Watch is deleted, the caller holds
	// the lock without looking again, and a deletion before that is no
	// reason to look. It may be set only when those nodes are all that
	// stands in the caller's way: sequence numbers only grow, so no node
	// can later appear in front of the caller. Without it, any change to
	// a watched node means a new look.
	HeldWhenGone bool
}

// Driver decides who holds a lock from the children of its directory. It
// is a pure function of the names, so both Curator and this library, given
// the same children, agree on the holder.
//
// lockName is the name of the lock's nodes, as given to NewWithDriver: the
// queue is ordered by what follows it (Curator's fixForSorting), never by
// the random protection id in front of it. A driver whose directory holds
// nodes of other names too (the read/write lock's) knows those names.
type Driver interface {
	// Sort orders children as the lock queue, in place: by sort key, and
	// equal keys by name, so that every party orders them alike.
	Sort(children []string, lockName string)
	// Decide judges the children, in the order the server listed them,
	// for the node named ours. It returns ErrNodeMissing when ours is not
	// among them, and an error wrapping ErrInvalidArgument when ours does
	// not carry lockName: such a node is never judged to hold. Only the
	// nodes in front of ours in the queue can bear on the verdict, so a
	// Driver need not sort the whole list.
	Decide(children []string, ours, lockName string) (Decision, error)
}

// StandardDriver is Curator's standard driver: the first maxLeases nodes of
// the queue hold the lock. A mutex is StandardDriver(1).
//
// Which nodes a waiter watches is where it differs from Curator, whose
// waiter watches the node maxLeases places in front of it and lists the
// directory again whenever that node goes. With one lease, a waiter close
// to the head (no more than handOffDepth nodes in front) watches every node
// in front of it and holds the moment the last of them is deleted, with no
// further look. A waiter further back watches the handOffDepth nodes right
// in front of it and looks again when one of them goes: usually the
// farther one, released while the nearer one takes over, so that the look
// is done before the waiter's turn comes. Each node is watched by at most
// handOffDepth waiters besides its owner.
func StandardDriver(maxLeases int) Driver {
	return standardDriver{maxLeases: maxLeases}
}

// handOffDepth is how many nodes in front a mutex waiter watches before
// its turn: the look it makes then has handOffDepth-1 hand-offs to finish.
const handOffDepth = 2

type standardDriver struct {
	maxLeases int
}

func (d standardDriver) Sort(children []string, lockName string) { sortQueue(children, lockName) }

func (d standardDriver) Decide(children []string, ours, lockName string) (Decision, error) {
	if !strings.Contains(ours, lockName) {
		return Decision{}, fmt.Errorf("%w: node %s does not carry the lock name %q", ErrInvalidArgument, ours, lockName)
	}
	i, nearest, err := inFront(children, ours, lockName, max(d.maxLeases, handOffDepth))
	if err != nil {
		return Decision{}, err
	}
	// nearest[len(nearest)-k] is the node k places in front of ours.
	k := len(nearest)
	switch {
	case i < d.maxLeases:
		return Decision{Held: true}, nil
	case d.maxLeases > 1:
		// The node maxLeases places in front: once it goes, there is room.
		watch := k - d.maxLeases
		return Decision{Watch: nearest[watch : watch+1], HeldWhenGone: i == d.maxLeases}, nil
	case i <= handOffDepth:
		return Decision{Watch: nearest, HeldWhenGone: true}, nil
	}
	return Decision{Watch: nearest[k-handOffDepth:]}, nil
}

// queued is a child and its sort key.
type queued struct {
	key, name string
}

// before orders queued children as Sort does: by key, and equal keys by
// name. Keys tie only where a node keeps another's place (the read/write
// lock's downgrade); the server lists children in no fixed order, so the
// name, not the listing, breaks the tie.
func before(a, b queued) bool {
	if c := strings.Compare(a.key, b.key); c != 0 {
		return c < 0
	}
	return a.name < b.name
}

// sortQueue sorts children by their key under lockName, equal keys by name.
func sortQueue(children []string, lockName string) {
	slices.SortFunc(children, func(a, b string) int {
		if c := strings.Compare(zkpath.SortKey(a, lockName), zkpath.SortKey(b, lockName)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
}

// inFront counts the children in front of ours and returns the last m of
// them in queue order. It selects rather than sorts: a waiter deep in a
// long queue needs its place and a few names, not the whole order.
func inFront(children []string, ours, lockName string, m int) (int, []string, error) {
	if !slices.Contains(children, ours) {
		return 0, nil, fmt.Errorf("%w: %s", ErrNodeMissing, ours)
	}
	us := queued{key: zkpath.SortKey(ours, lockName), name: ours}
	nearest := make([]queued, 0, m) // ascending, the m largest seen
	count := 0
	for _, name := range children {
		q := queued{key: zkpath.SortKey(name, lockName), name: name}
		if !before(q, us) {
			continue
		}
		count++
		if len(nearest) == m && !before(nearest[0], q) {
			continue
		}
		pos, _ := slices.BinarySearchFunc(nearest, q, func(e, t queued) int {
			if before(e, t) {
				return -1
			}
			return 1
		})
		if len(nearest) == m {
			copy(nearest[:pos-1], nearest[1:pos]) // drop the smallest
			nearest[pos-1] = q
			continue
		}
		nearest = slices.Insert(nearest, pos, q)
	}
	names := make([]string, len(nearest))
	for k, q := range nearest {
		names[k] = q.name
	}
	return count, names, nil
}
