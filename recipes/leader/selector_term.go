package leader

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes/internal/holdwatch"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// leadershipKey is the context key of a Selector's term: a termValue.
type leadershipKey struct{}

// termValue is a term and the Selector it is a term of.
type termValue struct {
	sel  *Selector
	lead *Leadership
}

// LeadershipFrom returns the term of leadership that a Selector's function
// runs in, from the context Run gave it: its fencing token, its guard op,
// and the signal of its end.
func LeadershipFrom(ctx context.Context) (*Leadership, bool) {
	tv, ok := ctx.Value(leadershipKey{}).(termValue)
	return tv.lead, ok && tv.lead != nil
}

// inOwnTerm reports whether ctx is (derived from) the context of a
// function of s.
func (s *Selector) inOwnTerm(ctx context.Context) bool {
	tv, ok := ctx.Value(leadershipKey{}).(termValue)
	return ok && tv.sel == s
}

// errReturned is the cause of a term whose function returned by itself.
var errReturned = fmt.Errorf("%w: the selector's function returned", ErrResigned)

// term runs fn for the term that hold stands for. fn's context is
// cancelled first when the term must end, and only after the term has
// ended with its cause, so that LeadershipFrom(fn's ctx).Err() says why
// whatever the cause (one rule: a loss, Close, the end of ctx). The node
// is deleted only after fn has returned, so that no successor leads while
// fn may still act. It returns fn's error, whether fn failed on its own
// (an error while its ctx was live), and hold when its node is kept
// instead (see keepsPlace).
func (s *Selector) term(ctx context.Context, hold *mutex.Hold, fn func(context.Context) error) (kept *mutex.Hold, failed bool, err error) {
	lead := newLeadership(hold, s.opts.id)
	s.rec.begin(lead)
	defer s.rec.end(lead) // runs last: the term ends once its node is released
	// fn's ctx ends only by cancel, below: not before the term has its
	// cause. It keeps ctx's values and deadline.
	values := context.WithValue(deadlineOf{context.WithoutCancel(ctx), ctx}, leadershipKey{}, termValue{sel: s, lead: lead})
	fctx, cancel := context.WithCancelCause(values)
	returned := make(chan struct{})
	interrupted := hold.Session().Interrupted(s.opts.policy)
	// Ends when fn has returned, or the term first ends by loss, Close or
	// the end of ctx.
	go s.endOnFirstCause(ctx, hold, lead, interrupted, returned, cancel)
	// watchStop runs on a goroutine of its own once fctx ends, and ends
	// when fn returns.
	stopWatch := context.AfterFunc(fctx, func() { s.watchStop(fctx, hold, returned) })
	defer func() {
		// Deferred, so that a panic that the caller recovers still frees
		// the election.
		close(returned)
		stopWatch()
		cancel(errReturned)
		lead.end(s.endCause(ctx, hold))
		if cause := lead.Err(); errors.Is(cause, ErrLost) {
			s.opts.logger.Info("leader: selector term lost", s.logIDs(), logAttr("node", hold.Node()), errAttr(cause))
		}
		if s.keepsPlace(ctx, lead) {
			kept = hold
			return
		}
		s.release(ctx, hold)
	}()
	if hold.Session().IsInterrupted(s.opts.policy) {
		// Interrupted as the lock was taken: others may lead already.
		return nil, false, fmt.Errorf("%w as leadership was taken", s.interruption(hold))
	}
	err = fn(fctx)
	return nil, err != nil && fctx.Err() == nil, err
}

// deadlineOf is a context that does not end with parent but reports its
// deadline.
type deadlineOf struct {
	context.Context // context.WithoutCancel(parent)
	parent          context.Context
}

func (d deadlineOf) Deadline() (time.Time, bool) { return d.parent.Deadline() }

// keepsPlace reports whether a selector keeps the node of term lead,
// ended: with auto-requeue, after a loss its session survives (a
// suspension, a lease run out), so that a blip does not move leadership.
// The next term is judged from a fresh listing once reconnected (Run).
func (s *Selector) keepsPlace(ctx context.Context, lead *Leadership) bool {
	return s.opts.autoRequeue && errors.Is(lead.Err(), ErrLost) && !lead.Session().IsLost() && s.stopped(ctx) == nil
}

// release deletes hold's node; a failure leaves it to the client's
// background deletion.
func (s *Selector) release(ctx context.Context, hold *mutex.Hold) {
	if err := hold.Release(ctx); err != nil && !errors.Is(err, ErrLost) {
		s.opts.logger.Warn("leader: selector's node not deleted; the client deletes it in the background",
			s.logIDs(), logAttr("node", hold.Node()), errAttr(err))
	}
}

// endCause says why a term whose function has returned ended.
func (s *Selector) endCause(ctx context.Context, hold *mutex.Hold) error {
	switch {
	case hold.Err() != nil:
		return hold.Err()
	case hold.Session().IsInterrupted(s.opts.policy):
		return s.interruption(hold)
	case s.closing.Err() != nil:
		return fmt.Errorf("leader: selector %s: %w", s.path, ErrClosed)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return errReturned
}

// interruption is the cause of a term whose session was interrupted
// under the selector's error policy, in holdwatch's words.
func (s *Selector) interruption(hold *mutex.Hold) error {
	return fmt.Errorf("leader: selector %s: %w: %s", s.path, ErrLost, holdwatch.Interruption(hold.Session()))
}

// watchStop runs once fn's context is cancelled: if fn has not returned
// within the stop timeout, it says so, naming the path and the
// participant, and says again when fn returns, which frees the election.
func (s *Selector) watchStop(fctx context.Context, hold *mutex.Hold, returned <-chan struct{}) {
	s.rec.stop()
	timer := time.NewTimer(s.opts.stopTimeout)
	defer timer.Stop()
	cancelled := time.Now()
	select {
	case <-returned:
		return
	case <-timer.C:
	}
	s.opts.logger.Warn("leader: selector's function has not returned within the stop timeout; its node keeps every successor out until it does",
		s.logIDs(), logAttr("node", hold.Node()),
		"stop_timeout", s.opts.stopTimeout, logAttr("cause", fmt.Sprint(context.Cause(fctx))))
	<-returned
	s.opts.logger.Info("leader: selector's function returned after the stop timeout",
		s.logIDs(), logAttr("node", hold.Node()), "after", time.Since(cancelled))
}

// endOnFirstCause ends the term lead, and fn's ctx with the term's cause,
// at the first of: the session interrupted, the leadership lost, the
// selector closing and the end of ctx. It returns at once when fn has
// returned first.
func (s *Selector) endOnFirstCause(ctx context.Context, hold *mutex.Hold, lead *Leadership, interrupted, returned <-chan struct{}, cancel context.CancelCauseFunc) {
	var cause error
	select {
	case <-interrupted:
		cause = s.interruption(hold)
	case <-lead.Lost():
		cause = lead.Err()
	case <-s.closing.Done():
		cause = fmt.Errorf("leader: selector %s: %w", s.path, ErrClosed)
	case <-ctx.Done():
		cause = context.Cause(ctx)
	case <-returned:
		return
	}
	lead.end(cause)
	cancel(lead.Err())
}
