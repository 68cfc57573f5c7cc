package chaos

import (
	"time"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// Clock stamps the instants of a run on CLOCK_MONOTONIC, the clock the
// Curator peer stamps its own holds on, so that the holds of both sides
// are ordered by one clock. An instant is rendered as a time.Time without
// a monotonic reading, a fixed wall-clock origin plus the monotonic
// reading, so that the report stays readable and time.Time's comparisons
// order instants exactly as CLOCK_MONOTONIC does.
type Clock struct {
	origin time.Time // the wall clock when mono0 was read
	mono0  int64
}

// NewClock returns a clock whose origin is now.
func NewClock() *Clock {
	return &Clock{origin: time.Now().Round(0), mono0: zktest.Monotonic()}
}

// Now returns the current instant.
func (c *Clock) Now() time.Time { return c.At(zktest.Monotonic()) }

// At returns the instant of a CLOCK_MONOTONIC reading in nanoseconds, such
// as the Curator peer's System.nanoTime.
func (c *Clock) At(mono int64) time.Time {
	return c.origin.Add(time.Duration(mono - c.mono0))
}
