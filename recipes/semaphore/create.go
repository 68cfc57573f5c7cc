package semaphore

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// unknownCount stands for a number of leases the transaction did not tell.
const unknownCount = -1

// txn is the transaction that creates an acquire's lease nodes: n
// protected ephemeral-sequential creates, each with a protection id of its
// own, and a write of the leases directory (its data stays empty), whose
// returned stat counts the leases, ours included, as of the transaction:
// the count costs no request of its own. The client retries a transaction
// whose answer was lost, so it may run twice; the protection ids tell the
// nodes of the first run, which are deleted as strays. Only then does the
// count come from a listing instead.
//
// Where the ACL lets the client create leases but not write the directory
// (Curator needs only the create permission), the semaphore drops the
// write for good, and counts by listing the directory.
type txn struct {
	ids     []string
	ops     []framework.Op
	session *framework.Session
}

func (s *Semaphore) newTxn(n int, session *framework.Session) *txn {
	t := &txn{ids: make([]string, n), ops: make([]framework.Op, n, n+1), session: session}
	for i := range t.ids {
		t.ids[i] = zkpath.NewProtectionID()
		p := zkpath.Join(s.leases, zkpath.ProtectedName(t.ids[i], zkpath.LeaseName))
		t.ops[i] = framework.CreateOp(p, s.opts.data, framework.EphemeralSequential)
	}
	if !s.listToCount.Load() {
		t.ops = append(t.ops, framework.SetOp(s.leases, nil, -1))
	}
	return t
}

// count returns the number of leases a successful run saw, or unknownCount.
func (t *txn) count(results []framework.OpResult) int {
	n := len(t.ids)
	if len(results) <= n || results[n].Stat == nil {
		return unknownCount
	}
	return int(results[n].Stat.NumChildren)
}

// create runs the transaction and returns the lease nodes and the number of
// leases it saw (or unknownCount). When the transaction failed with its
// fate unknown, the nodes are looked for by their ids: it is atomic, so
// all of them exist or none. A missing leases directory (the first acquire
// of a semaphore, or a container reaped since) is created, or the
// directory's write dropped, before another try.
func (s *Semaphore) create(ctx context.Context, n int) ([]framework.Node, int, error) {
	session, err := s.session(ctx)
	if err != nil {
		return nil, 0, err
	}
	t := s.newTxn(n, session)
	bound := framework.BindSession(ctx, session)
	twins := false // a run whose answer was lost may have been applied
	for attempt := 0; ; attempt++ {
		results, sent, err := s.multi(bound, t)
		twins = twins || sent > 1 || framework.IsRetryable(err)
		if err == nil {
			nodes := t.nodes(results)
			if !twins {
				return nodes, t.count(results), nil
			}
			s.sweepLater(nodes)
			return nodes, unknownCount, nil // counted by a listing, which also deletes strays
		}
		if ctx.Err() != nil {
			return nil, 0, ctx.Err() // multi deletes what an abandoned transaction made
		}
		nodes, ferr := s.find(bound, t)
		switch {
		case ferr != nil:
			s.deleteInBackground(nil, t.ids)
			return nil, 0, errors.Join(err, ctx.Err())
		case nodes != nil:
			s.sweepLater(nodes)
			return nodes, unknownCount, nil // it ran, and its answer was lost
		case attempt >= maxRepairs:
			if twins {
				s.deleteInBackground(nil, t.ids)
			}
			return nil, 0, err
		}
		if t, err = s.repair(bound, t, results, err); err != nil {
			if twins {
				s.deleteInBackground(nil, t.ids)
			}
			return nil, 0, err
		}
	}
}

// maxRepairs bounds the tries of a lease transaction that keeps failing for
// want of its directory, in case something keeps deleting it.
const maxRepairs = 5

// repair makes what the failed transaction t lacked: the leases directory
// (the first acquire of a semaphore), or the permission to write it (then
// it returns a transaction without the write). Other failures are
// returned as they are.
func (s *Semaphore) repair(ctx context.Context, t *txn, results []framework.OpResult, err error) (*txn, error) {
	n := len(t.ids)
	switch {
	case len(results) > 0 && errors.Is(results[0].Err, zk.ErrNoNode):
		return t, s.client.EnsurePath(ctx, s.leases)
	case len(results) > n && errors.Is(results[n].Err, zk.ErrNoAuth):
		s.listToCount.Store(true)
		t.ops = t.ops[:n]
		return t, nil
	}
	return t, err
}

// nodes returns the created nodes from a successful transaction's results.
func (t *txn) nodes(results []framework.OpResult) []framework.Node {
	nodes := make([]framework.Node, len(t.ids))
	for i, id := range t.ids {
		p := results[i].Path
		nodes[i] = framework.Node{Path: p, Name: zkpath.Base(p), ProtectionID: id, Session: t.session}
	}
	return nodes
}

// find looks for the transaction's nodes by their ids, and returns them if
// all are there. Some but not all can only be there if someone deleted the
// others: those are deleted too, and nil returned.
func (s *Semaphore) find(ctx context.Context, t *txn) ([]framework.Node, error) {
	children, _, err := s.client.Children(ctx, s.leases)
	if recipe.IsNoNode(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var nodes []framework.Node
	for _, id := range t.ids {
		for _, name := range children {
			if zkpath.HasProtectionID(name, id) {
				p := zkpath.Join(s.leases, name)
				nodes = append(nodes, framework.Node{Path: p, Name: name, ProtectionID: id, Session: t.session})
				break
			}
		}
	}
	switch {
	case len(nodes) == len(t.ids):
		return nodes, nil
	case len(nodes) > 0:
		s.discard(nodes)
	}
	return nil, nil
}

// session returns the client's current session, waiting for a connection.
func (s *Semaphore) session(ctx context.Context) (*framework.Session, error) {
	for {
		if session := s.client.Session(); session != nil {
			return session, nil
		}
		if err := s.client.WaitConnected(ctx); err != nil {
			return nil, err
		}
	}
}
