package atomicvalue

import (
	"context"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// makeValue returns the bytes an update writes over current (nil for a
// missing node), or an error that ends the update with nothing written: a
// node that is not in the value's format, a result out of range.
type makeValue func(current []byte, exists bool) ([]byte, error)

// update is Curator's trySet(MakeValue): optimistic tries under the
// value's retry policy, then, if none succeeded and a lock was given,
// tries under the lock. An error ends it at once: nothing was written, or
// it wraps ErrOutcomeUnknown.
func (e *engine) update(ctx context.Context, op string, next makeValue) (Result[[]byte], error) {
	var r Result[[]byte]
	start := time.Now()
	err := e.tries(ctx, op, &r, &r.Stats.OptimisticTries, e.opts.retry, next)
	r.Stats.OptimisticTime = time.Since(start)
	if err != nil || r.Succeeded || e.lock == nil {
		return r, err
	}
	err = e.promoted(ctx, op, &r, next)
	return r, err
}

// tries makes versioned writes until one succeeds, policy allows no more,
// or one fails; count counts them.
func (e *engine) tries(ctx context.Context, op string, r *Result[[]byte], count *int, policy framework.RetryPolicy, next makeValue) error {
	start := time.Now()
	for attempt := 0; ; attempt++ {
		*count++
		if err := e.tryOnce(ctx, op, r, next); err != nil || r.Succeeded {
			return err
		}
		wait, ok := policy.AllowRetry(attempt, time.Since(start))
		if !ok {
			return nil
		}
		if err := recipe.Sleep(ctx, wait); err != nil {
			return e.errorf(op, err)
		}
	}
}

// tryOnce reads the node and writes next's bytes conditionally on what it
// read: against the version read, or, for a missing node, as its create.
// A write that another writer beat leaves r unsucceeded, for another try.
func (e *engine) tryOnce(ctx context.Context, op string, r *Result[[]byte], next makeValue) error {
	current, version, exists, err := e.read(ctx, op)
	if err != nil {
		return err
	}
	r.PreValue = current
	data, err := next(current, exists)
	if err != nil {
		return e.errorf(op, err)
	}
	var applied bool
	if exists {
		applied, err = e.setVersion(ctx, op, data, version)
	} else {
		applied, err = e.create(ctx, op, data)
	}
	if applied {
		r.Succeeded, r.PostValue = true, data
	}
	return err
}
