package chaos

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

// Tally is the shared-count increment ledger: every increment a worker
// believes applied, and every one whose outcome it could not know (an
// error). It is safe for concurrent use.
type Tally struct {
	mu       sync.Mutex
	believed int
	unknown  int
}

// Believed counts an increment the worker believes applied.
func (t *Tally) Believed() { t.mu.Lock(); t.believed++; t.mu.Unlock() }

// Unknown counts an increment whose outcome the worker could not know.
func (t *Tally) Unknown() { t.mu.Lock(); t.unknown++; t.mu.Unlock() }

// Counts returns the believed and the unknown increments.
func (t *Tally) Counts() (believed, unknown int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.believed, t.unknown
}

// Check compares the count's rise, from seed to final, with what the
// workers believe: it must equal the believed increments exactly, give or
// take those whose outcome nobody knew (each may or may not have applied,
// at most once). A rise above that is an increment applied twice, as a
// TrySet whose answer was lost and that reports "not applied" makes; a rise
// below it is an increment believed applied that never was.
func (t *Tally) Check(recipe string, at time.Time, seed, final int32) []Violation {
	believed, unknown := t.Counts()
	rise := int(final) - int(seed)
	if rise >= believed && rise <= believed+unknown {
		return nil
	}
	return []Violation{{Kind: "count", Recipe: recipe, At: at, Detail: fmt.Sprintf(
		"the count rose by %d, but %d increments were believed applied and %d not known", rise, believed, unknown)}}
}

// Incrementer adds one to a shared count, again and again, by the
// documented loop: read the count and its version, TrySet the count plus
// one at that version, and read again if another write came first.
type Incrementer struct {
	Count *sharedcount.SharedCount
	Tally *Tally
	Stats *Stats
	Label string // names the incrementer in the counts, e.g. "increments"
}

// Run increments until ctx ends.
func (in *Incrementer) Run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := in.increment(ctx); err != nil && ctx.Err() == nil {
			in.Stats.acquireError(in.Label, err)
			pause(ctx, errorPause)
		}
		pause(ctx, maxHoldTime)
	}
}

// increment adds one, or fails; a failed TrySet's increment is not known.
func (in *Incrementer) increment(ctx context.Context) error {
	for {
		actx, cancel := context.WithTimeout(ctx, acquireTimeout)
		v, err := in.Count.Get(actx)
		if err != nil {
			cancel()
			return err
		}
		ok, err := in.Count.TrySet(actx, v.Count+1, v.Version)
		cancel()
		switch {
		case err != nil:
			in.Tally.Unknown()
			return err
		case ok:
			in.Tally.Believed()
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		}
	}
}
