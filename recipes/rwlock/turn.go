package rwlock

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// takeTurn waits until no other acquire or release by the owner in ctx is
// under way on either lock of rw, and returns a function that ends this
// acquire's turn; what names the lock in its errors.
// It waits until ctx ends, or at most bound if bound is not negative: a
// timed acquire's wait includes its turn, and one attempt does not wait
// (ErrNotAcquired).
//
// An owner's acquires take turns so that what the upgrade check sees
// stays true until the acquire has queued: without turns, a write acquire
// by an owner whose read acquire is under way in another goroutine passes
// the check and queues behind its own read node, and a read acquire beside
// the same owner's write acquire queues behind its own writer instead of
// downgrading; either waits for the owner itself. A goroutine is one
// owner, so only explicit owners (ContextWithOwner) used from two
// goroutines ever wait here.
func (rw *ReadWriteLock) takeTurn(ctx context.Context, what string, bound time.Duration) (func(), error) {
	owner, err := mutex.OwnerOf(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: acquire %s: %w", what, rw.path, err)
	}
	end, err := rw.turn(ctx, owner, bound)
	switch {
	case errors.Is(err, errBusy) && bound == 0:
		return nil, fmt.Errorf("%s: acquire %s: %w: an acquire or release of the same owner is under way", what, rw.path, ErrNotAcquired)
	case errors.Is(err, errBusy):
		return nil, fmt.Errorf("%s: acquire %s: %w: an acquire or release of the same owner was under way", what, rw.path, ErrNotAcquired)
	case err != nil:
		return nil, fmt.Errorf("%s: acquire %s: %w", what, rw.path, err)
	}
	return end, nil
}

// releaseTurn is the Turn of both locks' releases (mutex.WithTurn): a
// release by an owner waits for the owner's acquire or release under way,
// so that a downgrade and the release of the write lock do not interleave:
// the downgrade either comes first, or sees the write lock released and
// queues. It waits at most recipe.CleanupTimeout, since a release must
// finish, and then goes on outside the turn: an acquire that holds the
// turn that long is a wait in the queue, not a downgrade, which holds at
// once, and a downgrade checks the write node on the server anyway.
func (rw *ReadWriteLock) releaseTurn(owner any) func() {
	end, err := rw.turn(context.Background(), owner, recipe.CleanupTimeout)
	if err != nil {
		return func() {}
	}
	return end
}

// errBusy says that the turn did not come within its bound.
var errBusy = errors.New("the owner's turn did not come")

// turn waits for owner's turn on rw, until ctx ends (its error) or, if
// bound is not negative, at most bound (errBusy), and returns the function
// that ends it.
func (rw *ReadWriteLock) turn(ctx context.Context, owner any, bound time.Duration) (func(), error) {
	var expired <-chan time.Time // nil: no bound
	if bound > 0 {
		timer := time.NewTimer(bound)
		defer timer.Stop()
		expired = timer.C
	}
	for {
		rw.mu.Lock()
		busy, waiting := rw.turns[owner]
		if !waiting {
			done := make(chan struct{})
			rw.turns[owner] = done
			rw.mu.Unlock()
			return func() {
				rw.mu.Lock()
				delete(rw.turns, owner)
				rw.mu.Unlock()
				close(done)
			}, nil
		}
		rw.mu.Unlock()
		if bound == 0 {
			return nil, errBusy
		}
		select {
		case <-busy:
		case <-expired:
			return nil, errBusy
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
