package chaos

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

// Tally is the shared-count increment ledger: every increment a worker
// believes applied, and every one whose outcome it could not settle. It
// is safe for concurrent use.
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

// Check compares the counts' rise, from seed to final, with what the
// workers believe: it must equal the believed increments exactly, give or
// take those whose outcome could not be settled (each may or may not have
// applied, at most once; none in a run whose counts stayed readable). A rise above that is an increment applied twice, as a
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

// Incrementer adds one to a shared count of its own, again and again, by
// the documented loop: read the count and its version, TrySet the count
// plus one at that version, and read again if the TrySet reports that
// another write came first. Being the count's only writer, it settles a
// TrySet that failed with an error by reading the count again: one more
// than before is its increment, applied; so an increment it believes
// applied is exactly one that was, and a lost answer that makes TrySet
// report "not applied" after applying it shows as a count above the tally.
type Incrementer struct {
	Count *sharedcount.SharedCount
	Tally *Tally
	Stats *Stats
	Label string // names the incrementer in the counts, e.g. "increments go-0"
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

// increment adds one, or fails before writing, or settles a failed write.
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
			in.settle(ctx, v)
			return err
		case ok:
			in.Tally.Believed()
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		}
	}
}

// settle reads the count after a TrySet from before that failed, until a
// read succeeds: one more is the increment, applied; the same is none. A
// count that cannot be read by the end of the run is not known.
func (in *Incrementer) settle(ctx context.Context, before sharedcount.Value) {
	for {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), acquireTimeout)
		v, err := in.Count.Get(rctx)
		cancel()
		switch {
		case err == nil && v.Count == before.Count+1:
			in.Tally.Believed()
			return
		case err == nil && v.Count == before.Count:
			return
		case err == nil || ctx.Err() != nil:
			in.Tally.Unknown() // another writer, or no read before the end
			return
		}
		pause(ctx, errorPause)
	}
}
