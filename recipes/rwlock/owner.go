package rwlock

import (
	"context"

	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// ContextWithOwner returns a context whose acquires and releases act for
// owner instead of the calling goroutine, on both locks, so that a hold
// can be taken in one goroutine and released in another. owner must be
// comparable. It is mutex.ContextWithOwner: an owner is the same on every
// lock.
func ContextWithOwner(ctx context.Context, owner any) context.Context {
	return mutex.ContextWithOwner(ctx, owner)
}
