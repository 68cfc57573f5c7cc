package leader

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// Selector runs a function while it leads an election, as Curator's
// LeaderSelector: it queues as a mutex at the election's path, in
// Curator's wire format (<path>/_c_<uuid>-lock-<seq>, the participant id
// as data), so that Go Selectors and Curator LeaderSelectors on one path
// take turns. Its term is the function's run: the function's context is
// cancelled first when the term must end, and the node, which keeps every
// successor out, is deleted only after the function has returned. With
// WithAutoRequeue, a connection blip that the session survives does not
// move leadership (see Run). A Selector is safe for concurrent use.
type Selector struct {
	client *framework.Client
	path   string
	fn     func(ctx context.Context) error // run while leading
	lock   *mutex.Mutex
	opts   options
	obs    *Observer
	rec    record             // the terms, for Stats and Healthy
	life   *recipe.Background // the participant of Start: Done, Err

	closing context.Context // ended by Close
	stop    context.CancelFunc

	mu     sync.Mutex // guards closed, runs and idle
	closed bool
	runs   int           // calls of Run under way
	idle   chan struct{} // made by Close while runs > 0; closed when runs reaches 0
}

// Stats returns how many terms the selector has led and how long the last
// one lasted (to its function's return).
func (s *Selector) Stats() Stats { return s.rec.stats() }

// Healthy returns an error wrapping ErrUnhealthy when a function of the
// selector still runs more than maxStale after it was asked to stop
// (Close, a loss, the end of Run's ctx), or more than maxStale past its
// session's lease: the successor is kept out meanwhile, or, once the
// server expires the session, may lead beside it (see leaderhttp.Handler). Nil
// otherwise, and while it does not lead.
func (s *Selector) Healthy(maxStale time.Duration) error { return s.rec.healthy(maxStale) }

// NewSelector returns a Selector of the election at path that runs fn
// while it leads (see Run). It checks its arguments, with errors wrapping
// ErrInvalidArgument, and does no I/O.
func NewSelector(client *framework.Client, path string, fn func(ctx context.Context) error, opts ...Option) (*Selector, error) {
	if err := recipe.CheckPath(client, path, ErrInvalidArgument); err != nil {
		return nil, fmt.Errorf("leader: selector: %w", err)
	}
	if fn == nil {
		return nil, fmt.Errorf("leader: selector %s: %w: nil function", path, ErrInvalidArgument)
	}
	o, err := config(client, selectorPart, opts)
	if err != nil {
		return nil, fmt.Errorf("leader: selector %s: %w", path, err)
	}
	if err := checkNodeSize(path, selectorLockName, o.id); err != nil {
		return nil, fmt.Errorf("leader: selector %s: %w", path, err)
	}
	// The lock's holds end only with the session (or its lease): the
	// standard policy's suspension ends a term here, in term. A hold lost
	// while its session lives keeps its node until the release that
	// follows the function's return, so that no successor leads while the
	// function still runs.
	lock, err := mutex.NewWithDriver(client, path, selectorLockName, electionDriver{}, mutex.WithData([]byte(o.id)),
		mutex.WithErrorPolicy(framework.SessionErrorPolicy), mutex.WithNodeKeptOnLoss(),
		mutex.WithName("leader: selector"), mutex.WithKind("leader.selector", "")) // the term tells of its loss
	if err != nil {
		return nil, err
	}
	closing, stop := context.WithCancel(context.Background())
	return &Selector{
		client: client, path: path, fn: fn, lock: lock, opts: o,
		obs:     newObserver(client, path, selectorLockName),
		rec:     record{clock: o.clock},
		life:    recipe.NewBackground("leader: selector " + path),
		closing: closing, stop: stop,
	}, nil
}

// runOwner is the owner of one call of Run's holds: each call queues
// apart, whatever goroutine it runs on.
type runOwner struct{ _ byte }

// Run queues for leadership and calls the selector's function (fn, as
// given to NewSelector) while it leads, with a context
// that is cancelled, with the cause (context.Cause), as soon as the term
// must end: Close, the end of ctx, or the loss of leadership (a suspended
// connection under the standard error policy, the session's lease run
// out, the session lost, the node deleted by someone else). fn should
// return promptly then; until it does, the node stays and no successor
// leads (see WithStopTimeout). LeadershipFrom(fn's ctx) gives fn its term,
// with its fencing token and guard. One rule holds for every cause: by the
// time fn's ctx is cancelled, the term has ended, its Err says why (as
// context.Cause does) and its Guard fails.
//
// Without WithAutoRequeue, Run returns after one term, with fn's error.
// With it, Run queues again after each term and returns only on Close
// (ErrClosed) or the end of ctx; fn's errors are logged, and a function
// that keeps failing is backed off (see WithAutoRequeue). A term lost while
// the session lives (a suspension under the standard policy, a lease run
// out) keeps its node then: reconnected in the same session and still
// first by a listing read after the reconnect, Run calls fn again in a new
// term, and no one behind it leads meanwhile; after any other end of a
// term, the node is deleted and Run queues a new one at the tail. Each call
// of Run is a participant of its own (and so is Start's). A Run that ends
// while queued leaves nothing behind.
func (s *Selector) Run(ctx context.Context) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	owner := &runOwner{}
	var kept *mutex.Hold // the node of a term lost while its session lives
	backoff := failedBackoff{}
	for {
		hold, err := s.acquire(ctx, owner, kept)
		if err != nil {
			return err
		}
		began := s.opts.clock.now()
		var failed bool
		kept, failed, err = s.term(ctx, hold, s.fn)
		if stopped := s.stopped(ctx); stopped != nil {
			if kept != nil {
				s.release(ctx, kept)
			}
			return stopped
		}
		if !s.opts.autoRequeue {
			return err
		}
		wait := backoff.next(failed, s.opts.clock.now()-began)
		if err != nil {
			s.opts.logger.Warn("leader: selector's function failed; queueing again",
				s.logIDs(), errAttr(err), "after", wait)
		}
		s.pause(ctx, wait)
	}
}

// pause waits d before Run queues again, or until Close or the end of
// ctx, which the next acquire then reports.
func (s *Selector) pause(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.closing, cancel)
	defer stop()
	_ = recipe.Sleep(pctx, d) // ends early at Close or with ctx
}

// stopped returns the error Run returns once Close was called or ctx
// ended, and nil before.
func (s *Selector) stopped(ctx context.Context) error {
	switch {
	case s.closing.Err() != nil:
		return fmt.Errorf("leader: selector %s: %w", s.path, ErrClosed)
	case ctx.Err() != nil:
		return fmt.Errorf("leader: selector %s: %w", s.path, ctx.Err())
	}
	return nil
}

// acquire queues owner until it leads, Close, or the end of ctx: with
// kept's node if it is still first once reconnected in its session (see
// mutex.Mutex.Reclaim), else with a new node, kept's being deleted. With
// auto-requeue a failed queueing is tried again once connected, so that a
// participant whose session is up always leads or waits.
func (s *Selector) acquire(ctx context.Context, owner *runOwner, kept *mutex.Hold) (*mutex.Hold, error) {
	actx, cancel := context.WithCancel(mutex.ContextWithOwner(ctx, owner))
	defer cancel()
	stop := context.AfterFunc(s.closing, cancel)
	defer stop()
	if kept != nil {
		hold, err := s.lock.Reclaim(actx, kept)
		if err == nil {
			return hold, nil
		}
		s.release(ctx, kept)
		if stopped := s.stopped(ctx); stopped != nil {
			return nil, stopped
		}
		s.opts.logger.Info("leader: selector's lost term's place is given up; queueing again",
			s.logIDs(), errAttr(err))
	}
	backoff := observeRetryMin
	for {
		hold, err := s.lock.Acquire(actx)
		if err == nil {
			return hold, nil
		}
		if stopped := s.stopped(ctx); stopped != nil {
			return nil, stopped
		}
		if !s.opts.autoRequeue || errors.Is(err, framework.ErrClosed) {
			return nil, err
		}
		s.opts.logger.Warn("leader: selector could not queue; trying again",
			s.logIDs(), errAttr(err))
		// A failed wait is Close, ctx or the client's Close: the next
		// attempt says which.
		_ = s.client.WaitConnected(actx)
		_ = recipe.Sleep(actx, backoff)
		backoff = min(2*backoff, observeRetryMax)
	}
}

// enter counts a call of Run in, unless the Selector is closed.
func (s *Selector) enter() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("leader: selector %s: run: %w", s.path, ErrClosed)
	}
	s.runs++
	return nil
}

// leave counts a call of Run out, and tells a waiting Close of the last.
func (s *Selector) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs--
	if s.runs == 0 && s.idle != nil {
		close(s.idle)
		s.idle = nil
	}
}

// Start runs Run in the background, as a participant of its own, until
// ctx ends, Close, or Run returns by itself (after one term, without
// WithAutoRequeue); Done closes then, and Err says why. It returns at
// once. A second Start is ErrStarted, a Start after Close ErrClosed, and a
// Start with ctx ended already returns ctx's error and starts nothing.
func (s *Selector) Start(ctx context.Context) error {
	return s.life.Start(ctx, func(ctx context.Context) {
		if err := s.Run(ctx); err != nil {
			s.life.Stopped(err)
		}
	})
}

// Done returns a channel that is closed once the participant of Start has
// stopped, and its node is deleted (or handed to the client's background
// deletion).
func (s *Selector) Done() <-chan struct{} { return s.life.Done() }

// Err returns why the participant of Start stopped on its own: Run's
// error (the function's, after its one term without WithAutoRequeue; the
// end of Start's ctx). It is nil while it runs, after Close, and after a
// term whose function returned nil.
func (s *Selector) Err() error { return s.life.Err() }

// Close stops every call of Run (and Start's): a queued one leaves the queue, a leading
// one has its function's context cancelled (cause ErrClosed). Close
// returns once each has returned and its node is deleted (or handed to the
// client's background deletion, when the connection failed under the
// delete or the create was still on its way), or when ctx
// ends, or after the stop timeout (WithStopTimeout) with ErrStopTimeout
// if a function has still not returned; its node is deleted once it does.
// Later calls of Run return ErrClosed. Closing twice is harmless. Called
// by a function of this Selector (with the context Run gave it, or one
// derived from it), Close does not wait: the function's context is
// cancelled, and its node goes once it returns.
func (s *Selector) Close(ctx context.Context) error {
	s.life.Closing()
	s.mu.Lock()
	s.closed = true
	s.stop()
	if s.inOwnTerm(ctx) {
		// A function of s closing it would wait on itself.
		s.mu.Unlock()
		return nil
	}
	if s.runs == 0 {
		s.mu.Unlock()
		return s.life.Close(ctx) // Start's participant, if it has yet to enter
	}
	if s.idle == nil {
		s.idle = make(chan struct{})
	}
	idle := s.idle
	s.mu.Unlock()
	timer := time.NewTimer(s.opts.stopTimeout)
	defer timer.Stop()
	select {
	case <-idle:
		return s.life.Close(ctx)
	case <-timer.C:
		return fmt.Errorf("leader: selector %s: close: %w (%v); its node is deleted once it returns",
			s.path, ErrStopTimeout, s.opts.stopTimeout)
	case <-ctx.Done():
		return fmt.Errorf("leader: selector %s: close: %w", s.path, ctx.Err())
	}
}

// Leader returns the election's leader, Go or Java: see Observer.Leader.
func (s *Selector) Leader(ctx context.Context) (Participant, error) { return s.obs.Leader(ctx) }

// Participants lists the election as Curator's LeaderSelector does: see
// Observer.Participants.
func (s *Selector) Participants(ctx context.Context) ([]Participant, error) {
	return s.obs.Participants(ctx)
}

// Watch follows each change of the election's leader: see
// Observer.Watch.
func (s *Selector) Watch(ctx context.Context) (<-chan Observation, error) { return s.obs.Watch(ctx) }

// ID returns the participant id (WithID).
func (s *Selector) ID() string { return s.opts.id }

// Path returns the election's path.
func (s *Selector) Path() string { return s.path }
