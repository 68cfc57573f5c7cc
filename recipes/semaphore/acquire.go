package semaphore

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// guardOwner makes each acquire its own owner of the guard mutex, whatever
// owner the caller's context names: two acquires never share a guard hold.
type guardOwner struct{ _ byte }

// acquire is Curator's InterProcessSemaphoreV2 acquire, for n leases at
// once: under the guard mutex, create the lease nodes, then wait while the
// leases directory holds more nodes than the maximum. With once, it makes
// one attempt: a guard held by another, or no room, is ErrNotAcquired.
func (s *Semaphore) acquire(ctx context.Context, n int, once bool) ([]*leases.Lease, error) {
	if n < 1 || (s.count == nil && n > s.max) {
		return nil, s.fail(fmt.Errorf("%w: %d leases asked of a semaphore of %s", ErrInvalidArgument, n, s.describeMax()))
	}
	if err := ctx.Err(); err != nil {
		return nil, s.fail(err) // nothing sent for a context that has ended
	}
	if s.count != nil {
		// A bad count fails the acquire before anything is written.
		if _, _, err := s.maximum(ctx); err != nil {
			return nil, s.fail(err)
		}
	}
	report := recipe.StartAcquire(ctx, s.client, "semaphore", s.path)
	ls, err := s.acquireLeases(ctx, n, once)
	report.Done(err)
	return ls, err
}

// acquireLeases is acquire once its arguments are checked.
func (s *Semaphore) acquireLeases(ctx context.Context, n int, once bool) ([]*leases.Lease, error) {
	if s.opts.ttl > 0 {
		return s.acquireTTL(ctx, n, once)
	}
	hold, err := s.takeGuard(ctx, once)
	if err != nil {
		return nil, s.fail(err)
	}
	nodes, grant, err := s.createAndWait(ctx, n, once)
	s.releaseGuard(ctx, hold)
	if err == nil {
		err = s.stillHeld(nodes)
	}
	if err != nil {
		return nil, s.fail(err)
	}
	return s.issue(nodes, grant)
}

// stillHeld fails with ErrLost, and deletes the nodes, when their session
// was interrupted (under the error policy) while the guard was released:
// that release can wait through a partition until the session is lost, and
// others may then hold the leases that went with it.
func (s *Semaphore) stillHeld(nodes []framework.Node) error {
	if !nodes[0].Session.IsInterrupted(s.opts.policy) {
		return nil
	}
	s.discard(nodes)
	return fmt.Errorf("%w: connection or session lost before the leases were handed out", ErrLost)
}

// takeGuard acquires the guard mutex for one acquire, or with once makes
// one attempt at it.
func (s *Semaphore) takeGuard(ctx context.Context, once bool) (*mutex.Hold, error) {
	ctx = mutex.ContextWithOwner(ctx, &guardOwner{})
	if once {
		return s.guard.TryAcquire(ctx)
	}
	return s.guard.Acquire(ctx)
}

func (s *Semaphore) describeMax() string {
	if s.count != nil {
		return "shared maximum"
	}
	return fmt.Sprintf("maximum %d", s.max)
}

func (s *Semaphore) fail(err error) error {
	return fmt.Errorf("semaphore: acquire %s: %w", s.path, err)
}

// releaseGuard releases the guard; a failure only delays the next acquirer
// (the node is deleted in the background or dies with its session).
func (s *Semaphore) releaseGuard(ctx context.Context, hold *mutex.Hold) {
	if err := hold.Release(ctx); err != nil {
		s.log().Debug("semaphore guard release", "path", s.path, "err", err)
	}
}

// createAndWait creates the lease nodes and waits until they fit under the
// maximum, and returns them with the zxid that granted them (see
// waitForRoom). Nodes that do not become leases are deleted. A node
// that vanishes while we count (deleted by someone, or its container
// reaped) is created again, as Curator does.
func (s *Semaphore) createAndWait(ctx context.Context, n int, once bool) ([]framework.Node, int64, error) {
	for {
		nodes, seen, err := s.create(ctx, n)
		if err != nil {
			return nil, 0, createError(err)
		}
		grant, err := s.waitForRoom(ctx, nodes, seen, once)
		if err == nil {
			return nodes, grant, nil
		}
		s.discard(nodes)
		switch {
		case !errors.Is(err, ErrNodeMissing):
			return nil, 0, err
		case ctx.Err() != nil:
			// Both: why the acquire had to start over, and why it did
			// not (a timed acquire tells its deadline by the latter).
			return nil, 0, fmt.Errorf("%w: %w", err, ctx.Err())
		}
	}
}

// listing is what a read saw of the leases directory: the number of
// leases (unknownCount: none was read) and the directory's Pzxid then.
type listing struct {
	count int
	zxid  int64
}

// waitForRoom returns at once if seen, what the create saw of the leases
// directory, is within the maximum. Otherwise it lists the leases
// directory, watching it, until it holds no more nodes than the maximum.
// Only the guard holder watches it, with one watch at a time: a change of
// the maximum is judged against the listing the outstanding watch keeps
// current, which is listed again only when that watch fires. Every call
// is bound to the nodes' session, so nodes of a lost session never count
// as held. With once, no room at the first look is ErrNotAcquired.
//
// It returns the grant: the Pzxid of the leases directory in the read
// that showed room, the leases' fencing token. That read lists our nodes,
// so the grant is at least their creation zxid; and the Pzxid is the zxid
// of the last child created or deleted before the read. In a semaphore of
// one lease, every hold that ended before this one is handed out had its
// node deleted before that read (a node still there would have been
// counted, and left no room), after every write that gave that hold its
// token (its creation, the listing that granted it, or a Resume's write to
// the node): so the grant is above all their tokens, even when our node
// was created before them, as a waiter's is. A node's creation zxid would
// not be: a Resume may write the node a waiter waits behind. With several
// leases, holds that overlap need no order, and those that ended before
// the read are below it as above.
//
// The room is read, not kept from the events of a watch of the leases
// directory: a notification carries no zxid (ZooKeeper 3.8 sends -1), so
// a count kept from events proves no grant by itself. It would take the
// zxid of a write sent after the event that showed room, which the
// server orders after the deletion that made it: the guard's release as
// a transaction with a write of the leases directory would give one (the
// write's Mzxid, with the count in its stat).
func (s *Semaphore) waitForRoom(ctx context.Context, nodes []framework.Node, seen listing, once bool) (int64, error) {
	if seen.count != unknownCount {
		max, _, err := s.maximum(ctx)
		if err != nil || seen.count <= max {
			return seen.zxid, err
		}
	}
	session := nodes[0].Session
	bound := framework.BindSession(ctx, session)
	var watch <-chan zk.Event // nil: list again
	for {
		if watch == nil {
			l, w, err := s.listLeases(bound, nodes)
			if err != nil {
				return 0, err
			}
			if w == nil {
				continue // strays deleted: list again
			}
			seen, watch = l, w
		}
		max, changed, err := s.maximum(ctx)
		switch {
		case err != nil:
			return 0, err
		case seen.count <= max:
			return seen.zxid, nil
		case once:
			return 0, ErrNotAcquired
		}
		select {
		case <-watch:
			watch = nil
		case <-changed: // nil, never ready, for a fixed maximum
		case <-session.Lost():
			return 0, recipe.WaitError(framework.ErrSessionChanged, session, ErrNodeMissing)
		case <-ctx.Done():
			return 0, recipe.SeenHeld(ctx)
		}
	}
}

// listLeases lists the leases directory with a watch, and returns what it
// saw and the watch; or, when it found and deleted strays of our nodes, a
// nil watch (the listing is stale: list again).
func (s *Semaphore) listLeases(bound context.Context, nodes []framework.Node) (listing, <-chan zk.Event, error) {
	session := nodes[0].Session
	children, stat, watch, err := s.client.ChildrenW(bound, s.leases)
	if err != nil {
		return listing{}, nil, recipe.WaitError(err, session, ErrNodeMissing)
	}
	strays, err := tally(children, nodes)
	if err != nil {
		return listing{}, nil, err
	}
	if len(strays) > 0 {
		s.deleteStrays(bound, strays)
		return listing{}, nil, nil
	}
	return listing{count: len(children), zxid: stat.Pzxid}, watch, nil
}

// tally checks that every one of our nodes is among children, and returns
// the strays: other children carrying one of our protection ids, left by a
// transaction that was run twice because its answer was lost.
func tally(children []string, nodes []framework.Node) ([]string, error) {
	var strays []string
	found := 0
	for _, name := range children {
		for _, n := range nodes {
			switch {
			case name == n.Name:
				found++
			case zkpath.HasProtectionID(name, n.ProtectionID):
				strays = append(strays, name)
			}
		}
	}
	if found != len(nodes) {
		return nil, fmt.Errorf("%w: a lease node of this acquire vanished", ErrNodeMissing)
	}
	return strays, nil
}

// deleteStrays deletes duplicates of our nodes.
func (s *Semaphore) deleteStrays(ctx context.Context, strays []string) {
	for _, name := range strays {
		p := zkpath.Join(s.leases, name)
		if err := s.client.Delete(ctx, p, -1); err != nil && !recipe.IsNoNode(err) {
			_, _ = s.client.DeleteInBackground(p)
		}
	}
}

// maximum returns the maximum number of leases, and for a counted
// semaphore a channel closed when the count may have changed.
func (s *Semaphore) maximum(ctx context.Context) (int, <-chan struct{}, error) {
	if s.count == nil {
		return s.max, nil, nil
	}
	v, changed, err := s.count.Cached(ctx)
	switch {
	case err != nil:
		return 0, nil, err
	case v.Count < 0:
		return 0, nil, fmt.Errorf("%w: %s holds %d", ErrInvalidMaximum, s.count.Path(), v.Count)
	}
	return int(v.Count), changed, nil
}

// issue wraps the acquired nodes as leases granted at grant.
func (s *Semaphore) issue(nodes []framework.Node, grant int64) ([]*leases.Lease, error) {
	ls := make([]*leases.Lease, len(nodes))
	for i, node := range nodes {
		l, err := leases.Issue(s.client, node, s.opts.data, s.opts.leaseOptions()...)
		made := i
		if err == nil {
			ls[i], made = l, i+1
			err = l.Grant(grant) // see waitForRoom
		}
		if err != nil {
			_ = leases.ReleaseAll(context.Background(), ls[:made]...)
			s.discard(nodes[made:])
			return nil, s.fail(err)
		}
	}
	return ls, nil
}

// createError says ErrLost for a create that failed because the session
// it started in was lost.
func createError(err error) error {
	if errors.Is(err, framework.ErrSessionChanged) || errors.Is(err, zk.ErrSessionExpired) {
		return recipe.Errorf("%w: session lost while creating the lease nodes: %w", ErrLost, err)
	}
	return err
}
