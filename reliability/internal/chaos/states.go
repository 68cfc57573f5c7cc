package chaos

import (
	"fmt"
	"sync"

	"github.com/zkrecipes/zkrecipes/framework"
)

// StateLog records the connection states of one client, as a listener,
// and checks that they form a path of the client's state machine.
type StateLog struct {
	mu      sync.Mutex
	changes []framework.StateChange
}

// Listen is the framework.Listener that records a change.
func (l *StateLog) Listen(c framework.StateChange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.changes = append(l.changes, c)
}

// Count returns how many changes to state were recorded.
func (l *StateLog) Count(state framework.ConnectionState) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, c := range l.changes {
		if c.State == state {
			n++
		}
	}
	return n
}

// Check returns what is inconsistent in the recorded changes, which must
// start with the client's first state (add the listener between
// framework.New and WaitConnected): one Connected, first; Suspended only while
// connected; Reconnected only after Suspended (the same session) or Lost (a
// new session, flagged so); Lost only after Suspended; and, when the run is
// over and every fault undone, a connected last state.
func (l *StateLog) Check() []string {
	l.mu.Lock()
	changes := append([]framework.StateChange(nil), l.changes...)
	l.mu.Unlock()
	if len(changes) == 0 {
		return []string{"no state recorded"}
	}
	first := changes[0]
	var problems []string
	bad := func(i int, why string) {
		problems = append(problems, fmt.Sprintf("change %d (%v, session %#x): %s", i, changes[i].State, changes[i].SessionID, why))
	}
	if first.State != framework.Connected {
		bad(0, "the first state is not connected")
	}
	session := first.SessionID
	prev := first.State
	for i := 1; i < len(changes); i++ {
		c := changes[i]
		if why := transitionProblem(prev, c, session); why != "" {
			bad(i, why)
		}
		if c.State == framework.Reconnected {
			session = c.SessionID
		}
		prev = c.State
	}
	if !prev.IsConnected() {
		bad(len(changes)-1, "the last state is not connected")
	}
	return problems
}

// transitionProblem says what is wrong with the change c after a state
// prev in session, or "" when nothing is.
func transitionProblem(prev framework.ConnectionState, c framework.StateChange, session int64) string {
	switch c.State {
	case framework.Connected:
		return "connected again"
	case framework.Suspended:
		if !prev.IsConnected() {
			return fmt.Sprintf("suspended after %v", prev)
		}
	case framework.Lost:
		if prev != framework.Suspended {
			return fmt.Sprintf("lost after %v", prev)
		}
		if c.SessionID != session {
			return fmt.Sprintf("lost a session other than the current %#x", session)
		}
	case framework.Reconnected:
		switch {
		case prev == framework.Suspended && (c.NewSession || c.SessionID != session):
			return "reconnected after a suspension into another session without losing the first"
		case prev == framework.Lost && (!c.NewSession || c.SessionID == session):
			return "reconnected after a loss into the lost session, or not flagged new"
		case prev != framework.Suspended && prev != framework.Lost:
			return fmt.Sprintf("reconnected after %v", prev)
		}
	}
	return ""
}
