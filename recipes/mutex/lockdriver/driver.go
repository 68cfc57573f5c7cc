package lockdriver

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
// lockName is the name of the lock's nodes, as given to mutex.NewWithDriver: the
// queue is ordered by what follows it (Curator's fixForSorting), never by
// the random protection id in front of it. A driver whose directory holds
// nodes of other names too (the read/write lock's) knows those names.
type Driver interface {
	// Sort orders children as the lock queue, in place, as Curator does
	// (SortQueue), so that every party orders them alike.
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

func (d standardDriver) Sort(children []string, lockName string) { SortQueue(children, lockName) }

func (d standardDriver) Decide(children []string, ours, lockName string) (Decision, error) {
	in, near := 0, NewNearest(max(d.maxLeases, handOffDepth))
	err := InFront(children, ours, []string{lockName}, func(q Queued) {
		in++
		near.Add(q)
	})
	if err != nil {
		return Decision{}, err
	}
	// nearest[len(nearest)-k] is the node k places in front of ours.
	nearest := near.Names()
	k := len(nearest)
	switch {
	case in < d.maxLeases:
		return Decision{Held: true}, nil
	case d.maxLeases > 1:
		// The node maxLeases places in front: once it goes, there is room.
		watch := k - d.maxLeases
		return Decision{Watch: nearest[watch : watch+1], HeldWhenGone: in == d.maxLeases}, nil
	case in <= handOffDepth:
		return Decision{Watch: nearest, HeldWhenGone: true}, nil
	}
	return Decision{Watch: nearest[k-handOffDepth:]}, nil
}
