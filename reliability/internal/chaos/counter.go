package chaos

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
)

// The outcomes of an increment of a Counter, as its client saw them.
const (
	incrementBelieved = "believed" // Succeeded: applied once
	incrementUnknown  = "unknown"  // ErrOutcomeUnknown: its answer was lost; applied once or not at all
	incrementFailed   = "failed"   // any other error: nothing written
	incrementBeaten   = "beaten"   // not Succeeded, no error: other writers won every try; nothing written
	incrementPromoted = "promoted" // of all these, the updates that tried under the lock
)

// Counter is the ledger of one atomicvalue.Long that several clients
// increment at once: every increment's outcome, as the package promises
// it (an update that succeeded was applied once, one whose answer was
// lost is applied or ErrOutcomeUnknown, any other error and an update
// that did not succeed wrote nothing). It is safe for concurrent use.
type Counter struct {
	mu     sync.Mutex
	counts map[string]int
}

// note records the outcome of one increment.
func (c *Counter) note(r atomicvalue.Result[int64], err error) {
	outcome := incrementBelieved
	switch {
	case errors.Is(err, atomicvalue.ErrOutcomeUnknown):
		outcome = incrementUnknown
	case err != nil:
		outcome = incrementFailed
	case !r.Succeeded:
		outcome = incrementBeaten
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = make(map[string]int)
	}
	c.counts[outcome]++
	if r.Stats.PromotedTries > 0 {
		c.counts[incrementPromoted]++
	}
}

// Counts returns the increments by outcome, and those promoted to the
// lock.
func (c *Counter) Counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{incrementBelieved: 0, incrementUnknown: 0, incrementFailed: 0, incrementBeaten: 0, incrementPromoted: 0}
	for k, v := range c.counts {
		out[k] = v
	}
	return out
}

// Check compares the counter's final value, from a missing node (0), with
// the outcomes: at least the increments believed applied, at most those
// and the unknown ones; exactly the believed ones when none is unknown. A
// value above that is an increment applied twice, or one reported failed
// or beaten after it ran; below it, one reported applied that never was.
// Call it once every incrementer has stopped.
func (c *Counter) Check(at time.Time, final int64) []Violation {
	counts := c.Counts()
	believed, unknown := int64(counts[incrementBelieved]), int64(counts[incrementUnknown])
	if final >= believed && final <= believed+unknown {
		return nil
	}
	return []Violation{{Kind: "count", Recipe: "atomicvalue", At: at, Detail: fmt.Sprintf(
		"the counter ends at %d, but %d increments were believed applied and %d not known", final, believed, unknown)}}
}

// CounterIncrementer increments a Long, one increment after another, and
// notes each outcome in a Counter. Several incrementers on several
// clients share one Long, so that their updates contend.
type CounterIncrementer struct {
	Long    *atomicvalue.Long
	Counter *Counter
	Stats   *Stats
	Label   string // names the incrementer in the error counts, e.g. "atomicvalue go-0"
}

// Run increments until ctx ends.
func (in *CounterIncrementer) Run(ctx context.Context) {
	for ctx.Err() == nil {
		ictx, cancel := context.WithTimeout(ctx, acquireTimeout)
		r, err := in.Long.Increment(ictx)
		cancel()
		in.Counter.note(r, err)
		if err != nil && ctx.Err() == nil {
			in.Stats.acquireError(in.Label, err)
			pause(ctx, errorPause)
		}
		pause(ctx, maxHoldTime)
	}
}
