package rwlock

import (
	"context"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// takeTurn waits until no other acquire by the owner in ctx is under way
// on either lock of rw, and returns a function that ends this one's turn;
// what names the lock in its errors.
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
// owner, so only explicit owners (WithOwner) used from two goroutines ever
// wait here.
func (rw *ReadWriteLock) takeTurn(ctx context.Context, what string, bound time.Duration) (func(), error) {
	owner, err := mutex.OwnerOf(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: acquire %s: %w", what, rw.path, err)
	}
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
			return nil, fmt.Errorf("%s: acquire %s: %w: an acquire of the same owner is under way", what, rw.path, ErrNotAcquired)
		}
		select {
		case <-busy:
		case <-expired:
			return nil, fmt.Errorf("%s: acquire %s: %w: an acquire of the same owner was under way", what, rw.path, ErrNotAcquired)
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: acquire %s: %w", what, rw.path, ctx.Err())
		}
	}
}
