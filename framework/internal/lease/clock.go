package lease

import "time"

// Clock is where the client reads the time. Every decision (the session
// lease, how long a suspension has lasted) reads now: nanoseconds since
// the clock's origin on the monotonic clock, which a step of the wall
// clock does not move. The wall reading is for display only
// (StateChange.At) and decides nothing. A client has a monoClock; a test
// of this package gives a clock whose wall reading steps.
type Clock interface {
	// Now returns the monotonic time since the origin, in nanoseconds,
	// so that instants fit in an atomic int64.
	Now() int64
	// At returns the instant of reading n, carrying its monotonic
	// reading, so that a caller's time.Until ignores wall steps too.
	At(n int64) time.Time
	// Wall returns the wall-clock time, for display.
	Wall() time.Time
}

// MonoClock is the process's clock. time.Since uses the monotonic reading
// of origin: a change of the wall clock moves nothing.
type MonoClock struct{ origin time.Time }

// NewMonoClock returns a clock whose origin is now.
func NewMonoClock() MonoClock { return MonoClock{origin: time.Now()} }

// Now returns the monotonic time since the origin.
func (c MonoClock) Now() int64 { return int64(time.Since(c.origin)) }

// At returns the instant of reading n.
func (c MonoClock) At(n int64) time.Time { return c.origin.Add(time.Duration(n)) }

// Wall returns the wall-clock time.
func (c MonoClock) Wall() time.Time { return time.Now() }
