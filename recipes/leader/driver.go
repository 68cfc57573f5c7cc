package leader

import "github.com/zkrecipes/zkrecipes/recipes/mutex/lockdriver"

// electionDriver judges an election's queue, a latch's or a selector's,
// as Curator's LeaderLatch does: the first node in sort order leads, and
// each other watches the node right in front of it, so that no departure
// wakes more than one waiter. The waiter next in line leads the moment
// that node is deleted, with no further look (sequence numbers only grow,
// so no node can later appear in front of it); a waiter further back
// looks again when its node in front goes.
//
// The mutex's StandardDriver(1) watches both nodes in front of a waiter
// two places back, and the two nearest of one further back: such a
// waiter pays one request more to join, for a read-free hand-off only in
// the first case. An election keeps a join at four requests. Curator's
// LeaderSelector is a mutex on the wire; which node a waiter watches is
// no part of the protocol.
type electionDriver struct{}

func (electionDriver) Sort(children []string, lockName string) {
	lockdriver.SortQueue(children, lockName)
}

func (electionDriver) Decide(children []string, ours, lockName string) (lockdriver.Decision, error) {
	in, near := 0, lockdriver.NewNearest(1)
	err := lockdriver.InFront(children, ours, []string{lockName}, func(q lockdriver.Queued) {
		in++
		near.Add(q)
	})
	switch {
	case err != nil:
		return lockdriver.Decision{}, err
	case in == 0:
		return lockdriver.Decision{Held: true}, nil
	}
	return lockdriver.Decision{Watch: near.Names(), HeldWhenGone: in == 1}, nil
}
