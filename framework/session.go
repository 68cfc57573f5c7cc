package framework

import (
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework/internal/lease"
)

// Session is one ZooKeeper session as the client sees it. Recipes keep the
// Session their ephemeral node was created in, so they can tell when that
// node can no longer be trusted without asking the server.
type Session struct {
	id    int64
	lost  chan struct{}
	lease *lease.Lease // nil when no connect response of the session was seen

	mu        sync.Mutex    // guards the fields below
	down      chan struct{} // closed when the current connection is interrupted or the lease lapses
	held      chan struct{} // closed when the lease lapses or the session is lost
	suspended bool          // the current connection is interrupted
	lapsed    bool          // the lease ran out and no newer reply came since
	timer     *time.Timer   // fires at the lease deadline; nil without a lease
	onLapse   func(*Session)
}

func newSession(id int64, l *lease.Lease, onLapse func(*Session)) *Session {
	s := &Session{id: id, lost: make(chan struct{}), lease: l, down: make(chan struct{}), held: make(chan struct{}), onLapse: onLapse}
	if l == nil {
		return s
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l.Watch((*sessionLease)(s))
	// Each run ends at once: it checks the lease and sets the next.
	s.timer = time.AfterFunc(l.Left(), s.checkLease)
	return s
}

// ID returns the server's session id.
func (s *Session) ID() int64 { return s.id }

// Lost returns a channel that is closed when the client abandons the
// session: it expired, the client was suspended for longer than the session
// timeout, or the client was closed. Every ephemeral node of the session is
// then gone, or will be once the server notices.
func (s *Session) Lost() <-chan struct{} { return s.lost }

// IsLost reports whether Lost is closed.
func (s *Session) IsLost() bool {
	select {
	case <-s.lost:
		return true
	default:
		return false
	}
}

// LeaseDeadline returns when the session's lease runs out, on the
// monotonic clock of this process: the instant before which the server
// cannot have expired the session, whatever the network did since
// (see the package doc). ok is false when the client keeps no lease: it
// saw no connect response of the session.
func (s *Session) LeaseDeadline() (deadline time.Time, ok bool) {
	if s.lease == nil {
		return time.Time{}, false
	}
	return s.lease.DeadlineAt(), true
}

// LeaseRanOut reports whether the session's lease has run out: no reply
// has come to a request sent within T·(1−ε) of now. False for a client
// that keeps no lease.
func (s *Session) LeaseRanOut() bool { return s.lease != nil && s.lease.Left() <= 0 }

// Suspended returns a channel that is closed when the connection that is
// current at the time of the call is interrupted, when the session's lease
// runs out, or when the session is lost. If one of these is the case right
// now, the channel is already closed.
func (s *Session) Suspended() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.down
}

// Interrupted returns the channel that signals the end of a hold under
// policy: Suspended for the standard policy; for the session policy, a
// channel closed when the session's lease runs out or the session is
// lost. Under either policy a hold ends at the latest when the lease runs
// out. If acknowledgements resume in the same session after that, a later
// call returns a new channel: holds already told of their end stay ended,
// and new ones can be made.
func (s *Session) Interrupted(policy ErrorPolicy) <-chan struct{} {
	if policy == SessionErrorPolicy {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.held
	}
	return s.Suspended()
}

// IsInterrupted reports whether Interrupted(policy) is closed, or the
// lease has run out already: whether a hold of this session has ended
// under policy.
func (s *Session) IsInterrupted(policy ErrorPolicy) bool {
	if s.LeaseRanOut() {
		return true
	}
	select {
	case <-s.Interrupted(policy):
		return true
	default:
		return false
	}
}

// checkLease runs at the lease deadline: unless a reply has moved it on
// meanwhile, the lease has lapsed and every hold of the session ends.
func (s *Session) checkLease() {
	s.mu.Lock()
	if s.IsLost() {
		s.mu.Unlock()
		return
	}
	if left := s.lease.Left(); left > 0 {
		s.timer.Reset(left)
		s.mu.Unlock()
		return
	}
	if s.lapsed {
		s.mu.Unlock()
		return
	}
	s.lapsed = true
	s.lease.SetLapsed(true)
	closeOnce(s.down)
	closeOnce(s.held)
	s.mu.Unlock()
	if s.onLapse != nil {
		s.onLapse(s)
	}
}

// sessionLease is a Session as its lease's watcher sees it.
type sessionLease Session

// Shortened tells the Session that its lease's deadline moved back.
func (w *sessionLease) Shortened() { (*Session)(w).leaseShortened() }

// Renewed tells the Session that its lapsed lease moved on.
func (w *sessionLease) Renewed() { (*Session)(w).leaseRenewed() }

// leaseRenewed is called when a reply moves the lease on after it lapsed:
// the session was alive after all. Holds told of the lapse stay ended; new
// channels let new holds begin.
func (s *Session) leaseRenewed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	left := s.lease.Left()
	if !s.lapsed || s.IsLost() || left <= 0 {
		return
	}
	s.lapsed = false
	s.lease.SetLapsed(false)
	s.held = make(chan struct{})
	if !s.suspended {
		s.down = make(chan struct{})
	}
	s.timer.Reset(left)
}

// leaseShortened is called when a connection's grant moved the deadline
// back: the timer, set for the old deadline, must fire at the new one.
func (s *Session) leaseShortened() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.IsLost() || s.lapsed {
		return
	}
	s.timer.Reset(max(s.lease.Left(), 0))
}

// suspend closes the current connection's channel.
func (s *Session) suspend() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.suspended = true
	closeOnce(s.down)
}

// resume starts a new connection period in the same session, unless its
// lease has lapsed (the next reply then starts it).
func (s *Session) resume() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.suspended = false
	if s.lapsed {
		return
	}
	select {
	case <-s.down:
		s.down = make(chan struct{})
	default:
	}
}

// abandon marks the session lost for good.
func (s *Session) abandon() {
	s.suspend()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
	}
	// Lost first: a hold told of its interruption through held names the
	// session's loss as its cause, not a suspension.
	closeOnce(s.lost)
	closeOnce(s.held)
}

// closeOnce closes ch unless it is already closed. Callers serialise.
func closeOnce(ch chan struct{}) {
	select {
	case <-ch:
	default:
		close(ch)
	}
}
