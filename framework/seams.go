package framework

import "sync"

// seams are the points where a test of this package holds the client's
// background work back, to drive a race in a chosen order. A client has
// none (nil) outside this package's tests.
type seams struct {
	mu   sync.Mutex
	gate chan struct{}     // background deletes wait until it is closed
	held []<-chan struct{} // the finished channels of the deletes held

	restores chan struct{} // restores of watches wait until it is closed; nil: none

	probes  chan struct{} // ChangedSince's requests wait until it is closed; nil: none
	probing chan struct{} // told each time one waits

	states chan struct{} // the handling of connection events waits until it is closed; nil: none
}

// statesGate holds the handling of connection events back until a test
// lets it go, or the client ends: the client then keeps its view of the
// connection and session while go-zookeeper moves on.
func (s *seams) statesGate(life <-chan struct{}) {
	if s == nil || s.states == nil {
		return
	}
	select {
	case <-s.states:
	case <-life:
	}
}

// probeGate holds ChangedSince's requests back, after it has chosen which
// paths to ask with a one-shot watch, until a test lets them go.
func (s *seams) probeGate() {
	if s == nil || s.probes == nil {
		return
	}
	select {
	case s.probing <- struct{}{}:
	default:
	}
	<-s.probes
}

// restoreGate holds a restore of watches back until a test lets it go.
func (s *seams) restoreGate() {
	if s == nil || s.restores == nil {
		return
	}
	<-s.restores
}

// deleteGate returns the channel a background operation op waits on
// before it starts, nil for none, and records finished, its end.
func (s *seams) deleteGate(op string, finished <-chan struct{}) <-chan struct{} {
	if s == nil || op != "delete" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = append(s.held, finished)
	return s.gate
}
