package leader

import (
	"sync/atomic"
	"time"
)

// SteppingClock is a participant's clock whose wall reading a test steps
// while its monotonic reading runs on as the process's does.
type SteppingClock struct {
	mono monoClock
	step atomic.Int64
}

// NewSteppingClock returns a clock that has not been stepped.
func NewSteppingClock() *SteppingClock { return &SteppingClock{mono: newMonoClock()} }

// Step moves the wall reading by d, forward or back.
func (c *SteppingClock) Step(d time.Duration) { c.step.Add(int64(d)) }

func (c *SteppingClock) now() time.Duration { return c.mono.now() }

// wall carries no monotonic reading: whatever compares it compares wall
// times, and sees the steps.
func (c *SteppingClock) wall() time.Time {
	return time.Now().Round(0).Add(time.Duration(c.step.Load()))
}

// WithClock makes a participant read the time from c.
func WithClock(c *SteppingClock) Option {
	return func(o *options) error {
		o.clock = c
		o.parts.Configures("WithClock", latchPart, selectorPart)
		return nil
	}
}
