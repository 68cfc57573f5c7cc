package framework

import "time"

// clock is where the client reads the time. Every decision (the session
// lease, how long a suspension has lasted) reads now: nanoseconds since
// the clock's origin on the monotonic clock, which a step of the wall
// clock does not move. The wall reading is for display only
// (StateChange.At) and decides nothing. A client has a monoClock; a test
// of this package gives a clock whose wall reading steps.
type clock interface {
	// now returns the monotonic time since the origin, in nanoseconds,
	// so that instants fit in an atomic int64.
	now() int64
	// at returns the instant of reading n, carrying its monotonic
	// reading, so that a caller's time.Until ignores wall steps too.
	at(n int64) time.Time
	// wall returns the wall-clock time, for display.
	wall() time.Time
}

// monoClock is the process's clock. time.Since uses the monotonic reading
// of origin: a change of the wall clock moves nothing.
type monoClock struct{ origin time.Time }

func newMonoClock() monoClock { return monoClock{origin: time.Now()} }

func (c monoClock) now() int64           { return int64(time.Since(c.origin)) }
func (c monoClock) at(n int64) time.Time { return c.origin.Add(time.Duration(n)) }
func (c monoClock) wall() time.Time      { return time.Now() }
