package leader

import (
	"fmt"
	"sync"
	"time"
)

// Stats is what a participant has led: how many terms, and how long the
// last finished one lasted, on this process's monotonic clock.
type Stats struct {
	// Terms counts the terms that began.
	Terms int
	// LastTerm is the length of the last term that ended: from the grant
	// to the end of Lost (a latch) or the function's return (a selector).
	LastTerm time.Duration
	// Leading tells whether a term is under way.
	Leading bool
	// Began is when the term under way began, by the wall clock, for
	// display; zero while no term is under way. It decides nothing.
	Began time.Time
}

// record keeps what Stats and Healthy read of a participant's terms. Only
// readings of its clock's monotonic time decide: a step of the wall clock
// moves none of them.
type record struct {
	clock clock

	mu        sync.Mutex
	terms     int
	last      time.Duration
	current   *Leadership   // the term under way, or nil
	began     time.Duration // clock reading
	beganWall time.Time     // for Stats.Began
	stopping  time.Duration // clock reading when the term under way was asked to stop
	stopped   bool          // stopping is set
}

// begin records the start of term lead.
func (r *record) begin(lead *Leadership) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.terms++
	r.current, r.began, r.beganWall, r.stopped = lead, r.clock.now(), r.clock.wall(), false
}

// stop records that the term under way was asked to stop (a selector's
// function had its ctx cancelled).
func (r *record) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.current != nil && !r.stopped {
		r.stopping, r.stopped = r.clock.now(), true
	}
}

// end records the end of term lead.
func (r *record) end(lead *Leadership) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.current == lead {
		r.last, r.current = r.clock.now()-r.began, nil
	}
}

func (r *record) stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := Stats{Terms: r.terms, LastTerm: r.last, Leading: r.current != nil}
	if st.Leading {
		st.Began = r.beganWall
	}
	return st
}

// healthy returns nil unless a term is believed under way more than
// maxStale after its session's lease ran out, or more than maxStale after
// it was asked to stop.
func (r *record) healthy(maxStale time.Duration) error {
	r.mu.Lock()
	lead, stopping, stopped := r.current, r.stopping, r.stopped
	r.mu.Unlock()
	if lead == nil {
		return nil
	}
	if stopped {
		if over := r.clock.now() - stopping; over > maxStale {
			return fmt.Errorf("%w: the term of %s was asked to stop %v ago and has not", ErrUnhealthy, lead.Node(), over.Round(time.Millisecond))
		}
	}
	// The deadline carries the framework's monotonic reading, so
	// time.Since compares monotonic readings: no wall reading may stand
	// in for either side.
	if deadline, ok := lead.Session().LeaseDeadline(); ok {
		if over := time.Since(deadline); over > maxStale {
			return fmt.Errorf("%w: %s believes it leads %v past its session's lease", ErrUnhealthy, lead.Node(), over.Round(time.Millisecond))
		}
	}
	return nil
}
