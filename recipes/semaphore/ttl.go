package semaphore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
)

// acquireTTL is acquire for TTL leases (WithTTL): the same protocol, with
// lease nodes that are persistent with a time to live. Under the guard, it
// creates the n nodes one by one (a TTL create cannot be part of a
// transaction; the guard keeps other acquirers out meanwhile), then counts
// by listing. The nodes are renewed while they wait for room, so that a
// long wait does not let the server reap them.
func (s *Semaphore) acquireTTL(ctx context.Context, n int, once bool) ([]*leases.Lease, error) {
	hold, err := s.takeGuard(ctx, once)
	if err != nil {
		return nil, s.fail(err)
	}
	ls, err := s.createTTLAndWait(ctx, hold.Session(), n, once)
	s.releaseGuard(ctx, hold)
	if err != nil {
		return nil, s.fail(err)
	}
	return ls, nil
}

// createTTLAndWait creates the TTL lease nodes in session, the guard's,
// and waits until they fit under the maximum. Leases that are not handed
// out are released. A node that vanishes while we wait is created again,
// as Curator does.
func (s *Semaphore) createTTLAndWait(ctx context.Context, session *framework.Session, n int, once bool) ([]*leases.Lease, error) {
	for {
		ls, nodes, err := s.createTTL(framework.BindSession(ctx, session), n)
		if err != nil {
			s.releaseTTL(ls)
			return nil, createError(err)
		}
		stop := s.renewWhileWaiting(ls)
		grant, err := s.waitForRoom(ctx, nodes, listing{count: unknownCount}, once)
		stop()
		for _, l := range ls {
			if err == nil && l.Err() != nil {
				err = fmt.Errorf("%w: %w", ErrNodeMissing, l.Err())
			}
			if err == nil {
				err = l.Grant(grant) // see waitForRoom
			}
		}
		if err == nil {
			return ls, nil
		}
		s.releaseTTL(ls)
		if !errors.Is(err, ErrNodeMissing) || ctx.Err() != nil {
			return nil, err
		}
	}
}

// createTTL creates n TTL lease nodes, protected as every lease node is: a
// create whose answer was lost is found by its protection id, and one
// abandoned is deleted in the background. On failure it returns the
// leases made so far, for the caller to release.
func (s *Semaphore) createTTL(ctx context.Context, n int) ([]*leases.Lease, []framework.Node, error) {
	ls := make([]*leases.Lease, 0, n)
	nodes := make([]framework.Node, 0, n)
	for range n {
		// The server counts the TTL from the node's creation, which may come
		// long before the answer: the holder counts from before the send.
		sent := time.Now()
		node, err := s.client.CreateProtected(ctx, zkpath.Join(s.leases, zkpath.LeaseName), s.opts.data,
			framework.PersistentSequentialTTL, framework.WithTTL(s.opts.ttl), framework.WithParents())
		if err != nil {
			return ls, nil, ttlError(err)
		}
		l, err := leases.IssueTTL(s.client, node, 0, s.opts.data, s.opts.ttl, sent, s.opts.ttlLeaseOptions()...)
		if err != nil {
			return ls, nil, err
		}
		ls = append(ls, l)
		nodes = append(nodes, node)
	}
	return ls, nodes, nil
}

// ttlError says ErrTTLUnsupported for a create that the server refused
// because it does not know TTL nodes. go-zookeeper v1.0.4 has no sentinel
// for the server's UNIMPLEMENTED (-6) answer.
func ttlError(err error) error {
	if strings.Contains(err.Error(), "unknown error: -6") {
		return fmt.Errorf("%w: %w", leases.ErrTTLUnsupported, err)
	}
	return err
}

// renewWhileWaiting keeps the leases renewed until the returned stop is
// called; stop cancels a renewal under way and waits for it to finish.
func (s *Semaphore) renewWhileWaiting(ls []*leases.Lease) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	// Ends when stop is called.
	go func() {
		defer wg.Done()
		t := time.NewTimer(0) // a create answered late is due at once
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			t.Reset(s.renewDue(ctx, ls))
		}
	}()
	return func() { cancel(); wg.Wait() }
}

// renewDue renews each lease once a third of its time to live has passed
// since what its deadline counts from (its create's send, or its last
// renewal), not since the create's answer, which may come late; and it
// returns the time until the next renewal is due, a tenth of the time to
// live after one that failed.
func (s *Semaphore) renewDue(ctx context.Context, ls []*leases.Lease) time.Duration {
	ttl := s.opts.ttl
	next := ttl / 3
	for _, l := range ls {
		due := time.Until(l.Deadline().Add(-ttl * 2 / 3))
		switch {
		case l.Err() != nil: // a lease that ends shows it in its Err
			continue
		case due > 0:
			next = min(next, due)
			continue
		}
		rctx, rcancel := context.WithTimeout(ctx, ttl)
		if err := l.Renew(rctx); err != nil {
			next = min(next, ttl/10)
		}
		rcancel()
	}
	return next
}

// releaseTTL releases leases that were not handed out, under a context of
// its own.
func (s *Semaphore) releaseTTL(ls []*leases.Lease) {
	if len(ls) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), recipe.CleanupTimeout)
	defer cancel()
	if err := leases.ReleaseAll(ctx, ls...); err != nil {
		s.log().Debug("semaphore TTL lease release", "path", s.path, "err", err)
	}
}

// Resume takes over a TTL lease of this semaphore (WithTTL) that an earlier
// run of the holder's process acquired, by the name of its node (the last
// element of Lease.Node: path.Base), which the process kept: see
// leases.Resume. The returned lease replaces the earlier one, which is
// signalled lost (ErrTakenOver) and has the lower fencing token; of
// Resumes that race, one wins. A lease that is gone gives an error
// wrapping ErrLost; a name that is not a lease node's, or a semaphore
// without WithTTL, ErrInvalidArgument, before anything is sent.
func (s *Semaphore) Resume(ctx context.Context, name string) (*leases.Lease, error) {
	switch {
	case s.opts.ttl == 0:
		return nil, fmt.Errorf("%w: resume: semaphore %s has no TTL leases (WithTTL)", ErrInvalidArgument, s.path)
	case zkpath.ValidateName(name) != nil || !strings.Contains(name, zkpath.LeaseName):
		return nil, fmt.Errorf("%w: resume: %q is not a lease node's name", ErrInvalidArgument, name)
	}
	if _, ok := zkpath.ProtectionID(name); !ok {
		return nil, fmt.Errorf("%w: resume: %q is not a lease node's name", ErrInvalidArgument, name)
	}
	l, err := leases.Resume(ctx, s.client, zkpath.Join(s.leases, name), s.opts.ttlLeaseOptions()...)
	if err != nil {
		return nil, fmt.Errorf("semaphore: resume %s: %w", s.path, err)
	}
	return l, nil
}
