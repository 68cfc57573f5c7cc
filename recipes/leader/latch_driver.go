package leader

import "github.com/zkrecipes/zkrecipes/recipes/mutex"

// latchDriver judges the latch's queue as Curator's LeaderLatch does: the
// first node in sort order leads, and each other watches the node right
// in front of it, so that no departure wakes more than one waiter. The
// waiter next in line leads the moment that node is deleted, with no
// further look (sequence numbers only grow, so no node can later appear
// in front of it); a waiter further back looks again when its node in
// front goes.
//
// The mutex's StandardDriver(1) watches every node in front of a waiter
// up to two places back: a waiter second in line would pay one request
// more to join, for a hand-off that this driver also makes without a
// read whenever the nodes in front leave in turn, as leaders do.
type latchDriver struct{}

func (latchDriver) Sort(children []string, lockName string) { mutex.SortQueue(children, lockName) }

func (latchDriver) Decide(children []string, ours, lockName string) (mutex.Decision, error) {
	in, near := 0, mutex.NewNearest(1)
	err := mutex.InFront(children, ours, []string{lockName}, func(q mutex.Queued) {
		in++
		near.Add(q)
	})
	switch {
	case err != nil:
		return mutex.Decision{}, err
	case in == 0:
		return mutex.Decision{Held: true}, nil
	}
	return mutex.Decision{Watch: near.Names(), HeldWhenGone: in == 1}, nil
}
