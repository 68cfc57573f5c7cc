package semaphore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// Waits between rounds of a background clean-up of a transaction's nodes.
const (
	cleanupMinWait = 100 * time.Millisecond
	cleanupMaxWait = 5 * time.Second
)

// multi runs the transaction to its end even if ctx ends first, so that no
// abandoned call can create nodes after a clean-up has looked for them. If
// ctx ends first, whatever the transaction made is deleted in the
// background once it has answered; so is whatever a failed transaction may
// have made when ctx has ended by then.
func (s *Semaphore) multi(ctx context.Context, t *txn) ([]framework.OpResult, error) {
	type answer struct {
		results []framework.OpResult
		err     error
	}
	done := make(chan answer, 1)
	// Ends when the transaction does: after an answer, or when the client's
	// retry policy gives up or the client is closed.
	go func() {
		results, err := s.client.Multi(context.WithoutCancel(ctx), t.ops...)
		done <- answer{results, err}
	}()
	select {
	case a := <-done:
		if a.err != nil && ctx.Err() != nil {
			// The caller will not look for the nodes of a run whose answer
			// was lost: delete them.
			s.deleteInBackground(nil, t.ids, nil)
		}
		return a.results, a.err
	case <-ctx.Done():
		finished := make(chan struct{})
		// Ends when the transaction has answered.
		go func() { <-done; close(finished) }()
		s.deleteInBackground(finished, t.ids, nil)
		return nil, ctx.Err()
	}
}

// sweep deletes the strays of nodes: other lease nodes that carry their
// protection ids, left by a run of their transaction whose answer was
// lost. What it cannot delete now, it deletes in the background.
func (s *Semaphore) sweep(nodes []framework.Node) {
	ids := make([]string, len(nodes))
	keep := make(map[string]bool, len(nodes))
	for i, n := range nodes {
		ids[i] = n.ProtectionID
		keep[n.Name] = true
	}
	if err := s.deleteByIDs(ids, keep); err != nil && !errors.Is(err, framework.ErrClosed) {
		s.deleteInBackground(nil, ids, keep)
	}
}

// deleteInBackground deletes every lease node carrying one of ids, except
// those named in keep, once after is closed (nil: at once), retrying until
// it succeeds or the client is closed.
func (s *Semaphore) deleteInBackground(after <-chan struct{}, ids []string, keep map[string]bool) {
	// Ends when the nodes are gone or the client is closed.
	go func() {
		if after != nil {
			<-after
		}
		wait := cleanupMinWait
		for {
			err := s.deleteByIDs(ids, keep)
			if err == nil || errors.Is(err, framework.ErrClosed) {
				return
			}
			s.client.Logger().Warn("semaphore clean-up failed; will try again", "path", s.leases, "err", err)
			time.Sleep(wait)
			wait = min(2*wait, cleanupMaxWait)
		}
	}()
}

// deleteByIDs deletes the lease nodes that carry one of ids, except those
// named in keep.
func (s *Semaphore) deleteByIDs(ids []string, keep map[string]bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	children, _, err := s.client.Children(ctx, s.leases)
	if isNoNode(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, name := range children {
		for _, id := range ids {
			if keep[name] || !zkpath.HasProtectionID(name, id) {
				continue
			}
			if err := s.client.Delete(ctx, zkpath.Join(s.leases, name), -1); err != nil && !isNoNode(err) {
				return fmt.Errorf("semaphore: delete %s: %w", name, err)
			}
		}
	}
	return nil
}

// discard deletes nodes that did not become leases, under a context of its
// own (the caller's may have ended), and leaves to the client's background
// deletion any that it could not delete.
func (s *Semaphore) discard(nodes []framework.Node) {
	session := nodes[0].Session
	if session.IsLost() {
		return // gone with their session
	}
	ctx, cancel := context.WithTimeout(framework.BindSession(context.Background(), session), cleanupTimeout)
	defer cancel()
	ops := make([]framework.Op, len(nodes))
	for i, n := range nodes {
		ops[i] = framework.DeleteOp(n.Path, -1)
	}
	if _, err := s.client.Multi(ctx, ops...); err == nil {
		return
	}
	for _, n := range nodes { // some may be gone already: one by one
		if err := s.client.Delete(ctx, n.Path, -1); err != nil && !isNoNode(err) {
			_, _ = s.client.DeleteInBackground(n.Path)
		}
	}
}
