package semaphore

import (
	"context"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/recipe"
)

// multi runs the transaction to its end even if ctx ends first, so that no
// abandoned call can create nodes after a clean-up has looked for them. If
// ctx ends first, whatever the transaction made is deleted in the
// background once it has answered; so is whatever a failed transaction may
// have made when ctx has ended by then.
func (s *Semaphore) multi(ctx context.Context, t *txn) (results []framework.OpResult, sent int, err error) {
	type answer struct {
		results []framework.OpResult
		sent    int
	}
	a, finished, err := framework.Aside(ctx, func() (answer, error) {
		results, sent, err := s.client.Hooks().MultiSent(context.WithoutCancel(ctx), t.ops...)
		return answer{results, sent}, err
	})
	if err != nil && ctx.Err() != nil {
		// The caller will not look for the nodes of a run whose answer was
		// lost, or is still to come: delete them once it has answered.
		s.deleteInBackground(finished, t.ids)
	}
	return a.results, a.sent, err
}

// sweepLater deletes, in the background, the strays of nodes that a run
// of their transaction whose answer was lost may still leave if its
// request reaches the server late: other lease nodes that carry their
// protection ids. Strays already there are deleted by the listing that
// counts the leases of such a run (waitForRoom), so the client only looks
// later; an acquire that ends before that listing leaves them to the
// first of those looks, a second later.
func (s *Semaphore) sweepLater(nodes []framework.Node) {
	ids := make([]string, len(nodes))
	keep := make(map[string]bool, len(nodes))
	for i, n := range nodes {
		ids[i] = n.ProtectionID
		keep[n.Name] = true
	}
	_, _ = s.client.Hooks().DeleteProtected(framework.ProtectedCleanup{Parent: s.leases, IDs: ids, Keep: keep, LaterOnly: true})
}

// deleteInBackground deletes every lease node carrying one of ids once
// after is closed (nil: at once), through the client's background
// clean-up, which retries until it succeeds or the client is closed.
func (s *Semaphore) deleteInBackground(after <-chan struct{}, ids []string) {
	_, _ = s.client.Hooks().DeleteProtected(framework.ProtectedCleanup{Parent: s.leases, IDs: ids, After: after})
}

// discard deletes nodes that did not become leases, under the rule for
// finishing after the caller's context has ended, and leaves to the client's background
// deletion any that it could not delete.
func (s *Semaphore) discard(nodes []framework.Node) {
	session := nodes[0].Session
	if session.IsLost() {
		return // gone with their session
	}
	ctx, cancel := recipe.FinishContext(framework.BindSession(context.Background(), session))
	defer cancel()
	ops := make([]framework.Op, len(nodes))
	for i, n := range nodes {
		ops[i] = framework.DeleteOp(n.Path, -1)
	}
	if _, err := s.client.Multi(ctx, ops...); err == nil {
		return
	}
	for _, n := range nodes { // some may be gone already: one by one
		_ = recipe.DeleteNode(ctx, s.client, n)
	}
}
