package leader

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// State is where a participant is in its life, as Curator's
// LeaderLatch.State.
type State int

const (
	// Latent: made, not started.
	Latent State = iota
	// Started: taking part in the election, leading or waiting in line.
	Started
	// Closed: left the election, by Close, the end of the context given
	// to Start, or an error no retry cures.
	Closed
)

// String returns the state's name.
func (s State) String() string {
	switch s {
	case Latent:
		return "latent"
	case Started:
		return "started"
	case Closed:
		return "closed"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Latch is a participant in a leader election at one path, compatible
// with Curator's LeaderLatch: its node is path/_c_<uuid>-latch-<sequence>,
// the participant id as data, and the participant whose node is first in
// sequence order leads. A connection blip that the session survives ends
// the term but keeps the node, so it does not move leadership (see
// Start). A Latch is safe for concurrent use.
type Latch struct {
	client *framework.Client
	path   string
	opts   options
	log    *slog.Logger
	lock   *mutex.Mutex // the queue of latch nodes; the latch is its only owner
	obs    *Observer    // reads the election for Leader, Participants, Watch
	notify notifier
	rec    record             // the terms, for Stats and Healthy
	life   *recipe.Background // Start, Close, Done, Err

	// mu guards the fields below, and orders Close (life.Closing) with
	// the publication of a term: a term is published only while the latch
	// is not closed, so Close ends every term it does not prevent.
	mu      sync.Mutex
	current *term         // the term under way, or nil
	changed chan struct{} // closed, and replaced, when life or current changes
	leftErr error         // the failure of the last delete, for Close
}

// NewLatch returns a participant in the election at path. It checks its
// arguments and does no I/O; Start joins the election.
func NewLatch(client *framework.Client, path string, opts ...Option) (*Latch, error) {
	if err := recipe.CheckPath(client, path, ErrInvalidArgument); err != nil {
		return nil, err
	}
	o, err := config(client, latchPart, opts)
	if err != nil {
		return nil, err
	}
	if err := checkNodeSize(path, latchLockName, o.id); err != nil {
		return nil, err
	}
	l := &Latch{
		client: client, path: path, opts: o, log: o.logger, changed: make(chan struct{}),
		obs: newObserver(client, path, latchLockName), rec: record{clock: o.clock},
		life: recipe.NewBackground("leader latch " + path),
	}
	// A lost term's node stays until the latch has judged whether it
	// leads again with it (latch_run.go's reclaim) or gives it up.
	l.lock, err = mutex.NewWithDriver(client, path, zkpath.LatchName, electionDriver{},
		mutex.WithName("leader latch"), mutex.WithData([]byte(o.id)), mutex.WithErrorPolicy(o.policy),
		mutex.WithNodeKeptOnLoss(),
		mutex.WithKind("leader.latch", "")) // the latch tells of a lost term
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Leader returns the election's leader, Java participants included, or
// ErrNoLeader: see Observer.Leader.
func (l *Latch) Leader(ctx context.Context) (Participant, error) { return l.obs.Leader(ctx) }

// Participants returns every participant of the election in Curator's
// order, the leader flagged: see Observer.Participants.
func (l *Latch) Participants(ctx context.Context) ([]Participant, error) {
	return l.obs.Participants(ctx)
}

// Watch follows the election's latest leader, or that it has none, until
// ctx ends: see Observer.Watch.
func (l *Latch) Watch(ctx context.Context) (<-chan Observation, error) { return l.obs.Watch(ctx) }

// Stats returns how many terms the latch has led and how long the last
// one lasted.
func (l *Latch) Stats() Stats { return l.rec.stats() }

// Healthy returns an error wrapping ErrUnhealthy when the latch believes
// it leads more than maxStale past its session's lease: its term should
// have ended at the lease's end, so the process is stuck or starved (see
// leaderhttp.Handler). Nil otherwise, and while it does not lead.
func (l *Latch) Healthy(maxStale time.Duration) error { return l.rec.healthy(maxStale) }

// ID returns the participant id.
func (l *Latch) ID() string { return l.opts.id }

// Path returns the election's path.
func (l *Latch) Path() string { return l.path }

// State returns where the latch is in its life.
func (l *Latch) State() State {
	switch {
	case l.left():
		return Closed
	case l.life.Started():
		return Started
	}
	return Latent
}

// left tells whether the latch has left the election, or is leaving:
// closed, or stopped on its own.
func (l *Latch) left() bool { return l.life.Closed() || l.life.Err() != nil }

// Done returns a channel that is closed once the latch has left the
// election (Close, the end of Start's ctx, or an error no retry cures)
// and its node is deleted.
func (l *Latch) Done() <-chan struct{} { return l.life.Done() }

// Err returns why the latch left on its own: an error wrapping ErrClosed
// and the cause of Start's ctx when that ended, or the join's error that
// no retry cures. It is nil while the latch takes part, and after Close.
func (l *Latch) Err() error { return l.life.Err() }

// AddListener tells li of every later change of leadership (see
// Listener) until the returned function is called; a call under way may
// still finish after that. A listener added while the latch leads is told
// IsLeader first.
func (l *Latch) AddListener(li Listener) (remove func()) {
	return l.notify.add(li)
}

// Start joins the election: from now until ctx ends or Close is called,
// the latch takes part, in the background. It returns at once; Await
// waits for leadership. The latch queues a node at the tail and leads when
// its node is first. A term lost while the session lives (a suspension
// under the standard policy, a lease run out) keeps the node: reconnected
// in the same session and still first by a listing read after the
// reconnect, the latch leads again with it, in a new term, and no one
// behind it leads meanwhile. After any other loss (see Leadership.Err),
// or a failed join, it joins again with a new node by itself, in the
// current session, for as long as it takes part. When ctx ends, the latch leaves as by Close, the
// term's Err then being ctx's error: pass a context that lives as long as
// the participation, not one bounded to the call. Start may be called
// once: again, it returns ErrStarted; after Close, ErrClosed; with ctx
// ended already, ctx's error, and the latch stays latent.
func (l *Latch) Start(ctx context.Context) error { return l.life.Start(ctx, l.run) }

// Await blocks until the latch leads and returns the term, at once if it
// leads already. It returns with ctx's error when ctx ends first (the
// latch stays in line), and with ErrClosed (or the error that made the
// latch leave) once the latch has left; before Start, ErrNotStarted.
// It never returns a term that has ended, whose node is gone, or whose
// node belongs to a session other than the client's current one.
func (l *Latch) Await(ctx context.Context) (*Leadership, error) {
	for {
		l.mu.Lock()
		t, changed := l.current, l.changed
		l.mu.Unlock()
		switch {
		case l.left():
			if err := l.life.Err(); err != nil && !errors.Is(err, ErrClosed) {
				return nil, err // a join's error, which names the latch
			} else if err != nil {
				return nil, fmt.Errorf("leader latch: await %s: %w", l.path, err)
			}
			return nil, fmt.Errorf("leader latch: await %s: %w", l.path, ErrClosed)
		case !l.life.Started():
			return nil, fmt.Errorf("leader latch: await %s: %w", l.path, ErrNotStarted)
		case t != nil && l.stands(t.lead):
			return t.lead, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("leader latch: await %s: %w", l.path, ctx.Err())
		}
	}
}

// HasLeadership reports whether the latch leads now: a term is under way,
// not ended, in the client's current session.
func (l *Latch) HasLeadership() bool {
	l.mu.Lock()
	t := l.current
	l.mu.Unlock()
	return t != nil && l.stands(t.lead)
}

// stands reports whether lead is a term that has not ended, of a node in
// the client's current session, not interrupted under the error policy.
// The term's hold tells of each of these, but a moment later, on another
// goroutine: Await and HasLeadership do not answer from a stale term.
func (l *Latch) stands(lead *Leadership) bool {
	s := lead.Session()
	return lead.Err() == nil && l.client.Session() == s && !s.IsLost() && !s.IsInterrupted(l.opts.policy)
}

// Resign ends the term under way with ErrResigned, deletes the latch's
// node and returns once the server has acknowledged the delete; the latch
// then queues a new node at the tail, in the background. A latch that does
// not lead keeps its place, and Resign returns nil: so does one whose term
// was lost just before, which keeps its node while its session lives (see
// Start). When ctx ends first, Resign returns ctx's error; the term has
// ended and the delete goes on.
func (l *Latch) Resign(ctx context.Context) error {
	l.mu.Lock()
	t := l.current
	l.mu.Unlock()
	switch {
	case l.left():
		return fmt.Errorf("leader latch: resign %s: %w", l.path, ErrClosed)
	case !l.life.Started():
		return fmt.Errorf("leader latch: resign %s: %w", l.path, ErrNotStarted)
	case t == nil:
		return nil
	}
	if !t.lead.end(ErrResigned) && errors.Is(t.lead.Err(), ErrLost) {
		return nil // lost first: the latch does not lead, and keeps its place
	}
	select {
	case <-t.released:
		return t.releaseErr
	case <-ctx.Done():
		return fmt.Errorf("leader latch: resign %s: %w", l.path, ctx.Err())
	}
}

// Close leaves the election: it ends the term under way with ErrClosed,
// deletes the latch's node and returns once the server has acknowledged
// the delete (or a waiter's create was abandoned: the client then deletes
// the node in the background as soon as the create's answer is in). The
// listeners are told NotLeader only in Notify mode, and then before Close
// returns, as Curator's close() does: Close waits for every listener call
// posted until the latch has left, unless a listener calls it (it would
// wait on itself; its NotLeader then comes once that listener returns).
// When ctx ends first, Close returns ctx's error and the latch finishes
// leaving in the background. Closing a closed latch waits for the first
// Close to finish.
func (l *Latch) Close(ctx context.Context) error {
	l.mu.Lock()
	started, t := l.life.Closing(), l.current
	l.changedLocked()
	l.mu.Unlock()
	if !started {
		return nil // never started: nothing to delete
	}
	if t != nil {
		t.lead.end(ErrClosed)
	}
	if err := l.life.Close(ctx); err != nil {
		return err
	}
	if l.opts.mode == Notify {
		// The NotLeader that leaving posted is in the queue by now.
		if err := l.notify.flush(ctx); err != nil {
			return fmt.Errorf("leader latch: close %s: %w", l.path, err)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.leftErr
}

// changedLocked wakes every Await; l.mu is held.
func (l *Latch) changedLocked() {
	close(l.changed)
	l.changed = make(chan struct{})
}
