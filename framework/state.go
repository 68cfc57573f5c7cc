package framework

import (
	"fmt"
	"time"
)

// ConnectionState is the client's view of its connection, named as Curator
// names it.
type ConnectionState int

// The connection states.
const (
	// Connected is sent once, when the client first gets a session.
	Connected ConnectionState = iota + 1
	// Suspended: the connection is gone; the session may still live.
	Suspended
	// Reconnected: connected again after Suspended or Lost. StateChange says
	// whether the session is the same or a new one.
	Reconnected
	// Lost: the session expired, or the client was suspended for longer
	// than the session timeout. The session is abandoned for good.
	Lost
	// ReadOnly: connected to a read-only server.
	ReadOnly
)

// String returns the state's name.
func (s ConnectionState) String() string {
	switch s {
	case Connected:
		return "connected"
	case Suspended:
		return "suspended"
	case Reconnected:
		return "reconnected"
	case Lost:
		return "lost"
	case ReadOnly:
		return "read-only"
	}
	return fmt.Sprintf("ConnectionState(%d)", int(s))
}

// IsConnected reports whether the state is one in which calls can reach a
// server.
func (s ConnectionState) IsConnected() bool {
	return s == Connected || s == Reconnected || s == ReadOnly
}

// StateChange is one transition delivered to listeners.
type StateChange struct {
	State ConnectionState
	// SessionID is the session the state refers to: the new one for
	// Connected and Reconnected, the abandoned one for Lost.
	SessionID int64
	// NewSession is true for a Reconnected into a new session (every
	// ephemeral node of the previous session is gone).
	NewSession bool
	// At is when the client observed the transition.
	At time.Time
}

// ErrorPolicy decides which states end a hold on a lock or lease, as
// Curator's ConnectionStateErrorPolicy does.
type ErrorPolicy int

const (
	// StandardErrorPolicy counts Suspended as loss: the client sees the
	// disconnect before the server can expire the session and give the
	// lock to someone else. The session's lease ends a hold too, when it
	// runs out first (a one-way partition, in which go-zookeeper reports
	// no disconnect). The default.
	StandardErrorPolicy ErrorPolicy = iota
	// SessionErrorPolicy counts Lost as loss, and the end of the session's
	// lease (Session.LeaseDeadline): a hold survives a short disconnect,
	// as under Curator's SessionConnectionStateErrorPolicy, but only while
	// the lease lasts, so it ends before the server can expire the session
	// and give the lock to someone else.
	SessionErrorPolicy
)

// IsErrorState reports whether state ends a hold under the policy.
func (p ErrorPolicy) IsErrorState(state ConnectionState) bool {
	if state == Lost {
		return true
	}
	return p == StandardErrorPolicy && state == Suspended
}

// String returns the policy's name.
func (p ErrorPolicy) String() string {
	if p == SessionErrorPolicy {
		return "session"
	}
	return "standard"
}
