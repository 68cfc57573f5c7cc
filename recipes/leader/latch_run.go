package leader

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// Bounds of the pause between failed joins: the first retry is at once.
const (
	rejoinBase = 100 * time.Millisecond
	rejoinMax  = 2 * time.Second
)

// term is one term of leadership and the end of its node.
type term struct {
	lead *Leadership
	hold *mutex.Hold
	// released is closed once the node's delete has been acknowledged, or
	// has failed (releaseErr, written before), or was left to the hold's
	// own clean-up after a loss.
	released   chan struct{}
	releaseErr error
}

// run takes part in the election until ctx ends, the latch is closed or an
// error no retry cures: it queues a node, leads while it is first, and
// after each term, or a failed join, queues again.
func (l *Latch) run(ctx context.Context) {
	defer l.leaving(ctx)
	owner := mutex.ContextWithOwner(ctx, l) // the latch is its lock's one owner
	for attempt := 0; l.takingPart(ctx); {
		hold, err := l.lock.Acquire(owner)
		switch {
		case err == nil:
			attempt = 0
			for hold != nil {
				hold = l.lead(ctx, hold)
			}
		case !l.takingPart(ctx):
			// Acquire deleted its node as ctx ended.
		case terminal(err):
			l.fail(err)
			return
		default:
			l.log.Warn("leader latch: joining again", l.logIDs(), errAttr(err))
			if err := l.pause(ctx, attempt); err != nil {
				if errors.Is(err, framework.ErrClosed) {
					l.fail(err)
				}
				return
			}
			attempt++
		}
	}
}

// takingPart reports whether the latch is still in the election.
func (l *Latch) takingPart(ctx context.Context) bool {
	return ctx.Err() == nil && !l.left()
}

// lead publishes the term hold stands for, waits for its end, and then
// deletes its node, or, after a loss its session survives, leads again
// with the node if it is still first: it returns the next term's hold, or
// nil. A hold taken as the latch left is released unpublished.
func (l *Latch) lead(ctx context.Context, hold *mutex.Hold) *mutex.Hold {
	t := &term{lead: newLeadership(hold, l.opts.id), hold: hold, released: make(chan struct{})}
	l.mu.Lock()
	if l.life.Closed() || ctx.Err() != nil {
		l.mu.Unlock()
		t.lead.end(ErrClosed)
		l.deleted(l.release(t))
		return nil
	}
	// Recorded before it is published: an Await that returns the term
	// finds it in Stats.
	l.rec.begin(t.lead)
	l.current = t
	l.changedLocked()
	l.mu.Unlock()
	l.notify.post(Event{Type: IsLeader, Leadership: t.lead})
	select {
	case <-t.lead.Lost():
	case <-ctx.Done():
		t.lead.end(context.Cause(ctx))
	}
	// Leaving silences NotLeader (Silent mode); a term that ended for
	// another cause, even as the latch left, is told as Curator tells it.
	cause := t.lead.Err()
	leaving := errors.Is(cause, ErrClosed) || (ctx.Err() != nil && errors.Is(cause, context.Cause(ctx)))
	l.mu.Lock()
	l.current = nil
	l.changedLocked()
	l.mu.Unlock()
	l.rec.end(t.lead)
	if !leaving || l.opts.mode == Notify {
		l.notify.post(Event{Type: NotLeader, Leadership: t.lead})
	}
	if errors.Is(cause, ErrLost) {
		l.log.Info("leader latch: term lost", l.logIDs(), logAttr("node", hold.Node()), errAttr(cause))
		if next := l.reclaim(ctx, t); next != nil {
			return next
		}
	}
	if err := l.release(t); !l.takingPart(ctx) {
		l.deleted(err)
	}
	return nil
}

// reclaim keeps the place of a term lost while its session lives (a
// suspension, a lease run out): the node stays, no one behind it leads,
// and once connected again in the same session the latch leads again
// with it if a fresh listing shows it first, as Curator's latch does, so
// a blip does not move leadership. It returns the next term's hold, or
// nil when the place is given up: the session changed, the node is gone,
// or the latch left; the term then ends as any other, by release.
func (l *Latch) reclaim(ctx context.Context, t *term) *mutex.Hold {
	if t.hold.Session().IsLost() || !l.takingPart(ctx) {
		return nil
	}
	next, err := l.lock.Reclaim(ctx, t.hold)
	if err != nil {
		if l.takingPart(ctx) {
			l.log.Info("leader latch: the lost term's place is given up", l.logIDs(), errAttr(err))
		}
		return nil
	}
	// No delete comes: a Resign that raced the loss is answered.
	close(t.released)
	return next
}

// release deletes the term's node, tells Resign how that went, and
// returns it.
func (l *Latch) release(t *term) error {
	err := t.hold.Release(context.Background())
	if errors.Is(err, ErrLost) {
		// The lost hold's release deletes its kept node but does not say
		// how that went: the latch asks again (a node gone is no error),
		// so that it queues again behind nothing of its own, and Close
		// returns only once the node is gone.
		node := framework.Node{Path: t.hold.Node(), Session: t.hold.Session()}
		if err = recipe.DeleteNode(context.Background(), l.client, node); errors.Is(err, framework.ErrSessionChanged) {
			err = nil // gone with its session
		}
	}
	t.releaseErr = err
	close(t.released)
	return err
}

// deleted records for Close how the delete of the last node went.
func (l *Latch) deleted(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.leftErr = err
}

// pause waits before the next join, for a connection and then for a back
// off that grows with attempt, or until ctx ends.
func (l *Latch) pause(ctx context.Context, attempt int) error {
	if err := l.client.WaitConnected(ctx); err != nil {
		return err
	}
	if attempt == 0 {
		return nil
	}
	return recipe.Sleep(ctx, min(rejoinBase<<min(attempt-1, 10), rejoinMax))
}

// terminal reports whether err is one no retry cures: the latch then
// leaves, and Await returns it.
func terminal(err error) bool {
	for _, t := range []error{framework.ErrClosed, ErrInvalidArgument, framework.ErrAuthFailed,
		zk.ErrNoAuth, zk.ErrInvalidACL, zk.ErrBadArguments, zk.ErrNoChildrenForEphemerals} {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// fail makes the latch leave for err, which Await returns from now on.
func (l *Latch) fail(err error) {
	if errors.Is(err, framework.ErrClosed) {
		// The client's Close ends every recipe on it: no news to warn of.
		l.log.Debug("leader latch: left the election with its client", l.logIDs())
	} else {
		l.log.Error("leader latch: left the election", l.logIDs(), errAttr(err))
	}
	l.life.Stopped(err)
	l.wake()
}

// leaving records, as run ends, why the latch left when Start's ctx
// ended (Close records nothing), and wakes every Await.
func (l *Latch) leaving(ctx context.Context) {
	if ctx.Err() != nil {
		l.life.Stopped(fmt.Errorf("%w: %w", ErrClosed, context.Cause(ctx)))
	}
	l.wake()
}

// wake wakes every Await to look at the latch again.
func (l *Latch) wake() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.changedLocked()
}
