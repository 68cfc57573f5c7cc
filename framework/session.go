package framework

import "sync"

// Session is one ZooKeeper session as the client sees it. Recipes keep the
// Session their ephemeral node was created in, so they can tell when that
// node can no longer be trusted without asking the server.
type Session struct {
	id   int64
	lost chan struct{}

	mu   sync.Mutex    // guards down
	down chan struct{} // closed when the current connection of the session is interrupted
}

func newSession(id int64) *Session {
	return &Session{id: id, lost: make(chan struct{}), down: make(chan struct{})}
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

// Suspended returns a channel that is closed when the connection that is
// current at the time of the call is interrupted (or the session is lost).
// If the session is suspended right now, the channel is already closed.
func (s *Session) Suspended() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.down
}

// Interrupted returns the channel that signals the end of a hold under
// policy: Suspended for the standard policy, Lost for the session policy.
func (s *Session) Interrupted(policy ErrorPolicy) <-chan struct{} {
	if policy == SessionErrorPolicy {
		return s.lost
	}
	return s.Suspended()
}

// IsInterrupted reports whether Interrupted(policy) is closed: whether a
// hold of this session has ended under policy.
func (s *Session) IsInterrupted(policy ErrorPolicy) bool {
	select {
	case <-s.Interrupted(policy):
		return true
	default:
		return false
	}
}

// suspend closes the current connection's channel.
func (s *Session) suspend() {
	s.mu.Lock()
	defer s.mu.Unlock()
	closeOnce(s.down)
}

// resume starts a new connection period in the same session.
func (s *Session) resume() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.down:
		s.down = make(chan struct{})
	default:
	}
}

// abandon marks the session lost for good.
func (s *Session) abandon() {
	s.suspend()
	closeOnce(s.lost)
}

// closeOnce closes ch unless it is already closed. Callers serialise.
func closeOnce(ch chan struct{}) {
	select {
	case <-ch:
	default:
		close(ch)
	}
}
