package atomicvalue

import (
	"context"
	"errors"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// promoted is the update's second chance (Curator's tryWithMutex): it
// takes the lock, waiting at most the lock timeout, and tries under it
// as the lock's retry policy allows. A lock seen held by others for the
// whole timeout leaves the update unsucceeded, with no error; a server
// that could not be reached is an error wrapping ErrUnreachable.
func (e *engine) promoted(ctx context.Context, op string, r *Result[[]byte], next makeValue) error {
	start := time.Now()
	defer func() { r.Stats.PromotedTime = time.Since(start) }()
	e.log().Debug("update promoted to the lock", "op", op, recipe.LogAttr("path", e.path),
		recipe.LogAttr("lock", e.opts.promoted.Path), "optimisticTries", r.Stats.OptimisticTries)
	hold, err := e.acquire(ctx)
	switch {
	case errors.Is(err, mutex.ErrNotAcquired):
		return nil
	case err != nil:
		return e.errorf(op, err)
	}
	defer e.release(ctx, hold)
	policy := e.opts.promoted.RetryPolicy
	if policy == nil {
		policy = framework.NoRetry()
	}
	return e.tries(ctx, op, r, &r.Stats.PromotedTries, policy, next)
}

// acquire takes the promotion's lock, bounded by its timeout if it has one.
func (e *engine) acquire(ctx context.Context) (*mutex.Hold, error) {
	if d := e.opts.promoted.Timeout; d > 0 {
		return e.lock.AcquireTimeout(ctx, d)
	}
	return e.lock.Acquire(ctx)
}

// release gives the lock back. Its failure is logged, not returned: the
// update's outcome stands either way, and the mutex deletes a node it
// could not delete in the background once connected.
func (e *engine) release(ctx context.Context, hold *mutex.Hold) {
	if err := hold.Release(ctx); err != nil {
		e.log().Warn("could not release the promotion's lock", recipe.LogAttr("path", e.path),
			recipe.LogAttr("lock", hold.Node()), recipe.ErrAttr(err))
	}
}
