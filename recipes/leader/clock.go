package leader

import "time"

// clock is where a participant reads the time for its record of terms
// (Stats, Healthy). Every decision reads now: the time since the clock's
// origin on the monotonic clock, which a step of the wall clock does not
// move. The wall reading is for display only (Stats.Began) and decides
// nothing. A participant has a monoClock; a test of this package gives a
// clock whose wall reading steps.
type clock interface {
	// now returns the monotonic time since the origin.
	now() time.Duration
	// wall returns the wall-clock time, for display.
	wall() time.Time
}

// monoClock is the process's clock. time.Since uses the monotonic reading
// of origin: a change of the wall clock moves nothing.
type monoClock struct{ origin time.Time }

func newMonoClock() monoClock { return monoClock{origin: time.Now()} }

func (c monoClock) now() time.Duration { return time.Since(c.origin) }
func (c monoClock) wall() time.Time    { return time.Now() }
