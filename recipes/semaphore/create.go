package semaphore

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// unknownCount stands for a number of leases the transaction did not tell.
const unknownCount = -1

// txn is the transaction that creates an acquire's lease nodes: n
// protected ephemeral-sequential creates, each with a protection id of its
// own, and a write of the leases directory (its data stays empty), whose
// returned stat counts the leases, ours included, as of the transaction:
// the count costs no request of its own. What happens when its answer is
// lost is the client's rule for transactions (framework.Client.Multi): the
// protection ids let the client find a run that was applied, so it is
// never run twice for that, and the nodes of a run that arrives late, or
// of a transaction that failed or was abandoned, are deleted by the
// client. Only then does the count come from a listing instead.
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

// seen returns what a successful run saw of the leases directory: the
// number of leases, ours included, and the directory's Pzxid, which is
// the run's own zxid (its creates changed the directory's children); or
// unknownCount.
func (t *txn) seen(results []framework.OpResult) listing {
	n := len(t.ids)
	if len(results) <= n || results[n].Stat == nil {
		return listing{count: unknownCount}
	}
	return listing{count: int(results[n].Stat.NumChildren), zxid: results[n].Stat.Pzxid}
}

// create runs the transaction and returns the lease nodes and what it saw
// of the leases directory (or unknownCount). A missing leases directory (the first
// acquire of a semaphore, or a container reaped since) is created, or the
// directory's write dropped, before another try, with new ids: the client
// deletes in the background whatever carries the ids of a failed
// transaction whose answer was lost.
func (s *Semaphore) create(ctx context.Context, n int) ([]framework.Node, listing, error) {
	unknown := listing{count: unknownCount}
	session, err := s.session(ctx)
	if err != nil {
		return nil, unknown, err
	}
	bound := framework.BindSession(ctx, session)
	for attempt := 0; ; attempt++ {
		t := s.newTxn(n, session)
		results, sent, err := s.client.Hooks().MultiSent(bound, t.ops...)
		switch {
		case err == nil && sent > 1:
			// A run whose answer was lost may still arrive: count by a
			// listing, which also deletes what it left.
			return t.nodes(results), unknown, nil
		case err == nil:
			return t.nodes(results), t.seen(results), nil
		case attempt >= maxRepairs:
			return nil, unknown, err
		}
		// A ctx that ended meanwhile fails the repair, or the next try,
		// with its own error, before anything is sent: the caller hears
		// that its ctx ended, not of a directory it never asked for.
		if err := s.repair(bound, t, results, err); err != nil {
			return nil, unknown, err
		}
	}
}

// maxRepairs bounds the tries of a lease transaction that keeps failing for
// want of its directory, in case something keeps deleting it.
const maxRepairs = 5

// repair makes what the failed transaction t lacked: the leases directory
// (the first acquire of a semaphore), or the permission to write it (then
// the next transactions leave the write out). Other failures are
// returned as they are.
func (s *Semaphore) repair(ctx context.Context, t *txn, results []framework.OpResult, err error) error {
	n := len(t.ids)
	switch {
	case len(results) > 0 && errors.Is(results[0].Err, zk.ErrNoNode):
		return s.client.EnsurePath(ctx, s.leases)
	case len(results) > n && errors.Is(results[n].Err, zk.ErrNoAuth):
		s.listToCount.Store(true)
		return nil
	}
	return err
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
