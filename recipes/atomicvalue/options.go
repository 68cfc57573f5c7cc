package atomicvalue

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Option configures a Long, an Int, a Bytes or a CachedLong.
type Option func(*options) error

type options struct {
	retry    framework.RetryPolicy // nil: defaultRetry
	promoted *PromotedToLock       // nil: optimistic tries only
	logger   *slog.Logger          // nil: the client's (WithLogger)
}

// defaultRetry is the optimistic tries' policy without WithRetryPolicy.
func defaultRetry() framework.RetryPolicy {
	return framework.ExponentialBackoff(5*time.Millisecond, 500*time.Millisecond, 10)
}

// PromotedToLock says how an update that its optimistic tries could not
// make is tried again under a mutex (Curator's PromotedToLock): the lock is
// a mutex.Mutex on Path, compatible with Curator's InterProcessMutex, so Go
// and Java updaters promoted on one path take turns.
type PromotedToLock struct {
	// Path is the lock's path (required). Every updater of the value that
	// promotes should name the same one.
	Path string
	// Timeout bounds the wait for the lock; when it runs out while the
	// lock is held by others, the update does not succeed (no error). Zero
	// waits as long as the update's ctx allows, as Curator's default does.
	Timeout time.Duration
	// RetryPolicy decides the tries under the lock after the first (a
	// versioned write still: a writer that does not promote may come
	// first). Nil: one try, as Curator's default.
	RetryPolicy framework.RetryPolicy
}

// WithRetryPolicy sets the policy of the optimistic tries: after a try
// that another writer beat, whether to read and try again and how long to
// wait first (Curator's retryPolicy argument). Default: up to 10 retries,
// waiting a random 5 ms to 2^(n+1) × 5 ms, at most 500 ms, before retry n
// (framework.ExponentialBackoff(5ms, 500ms, 10)).
func WithRetryPolicy(p framework.RetryPolicy) Option {
	return func(o *options) error {
		if p == nil {
			return fmt.Errorf("%w: nil retry policy", ErrInvalidArgument)
		}
		o.retry = p
		return nil
	}
}

// WithPromotedToLock makes an update that its optimistic tries could not
// make try again while it holds the mutex p describes. Its path is checked
// as the value's is, by the constructor. Default: optimistic tries only.
func WithPromotedToLock(p PromotedToLock) Option {
	return func(o *options) error {
		if p.Timeout < 0 {
			return fmt.Errorf("%w: negative lock timeout %v", ErrInvalidArgument, p.Timeout)
		}
		o.promoted = &p
		return nil
	}
}

// WithLogger sets the logger of the value's own messages (a promotion, a
// lock that could not be released). A nil logger is rejected with
// ErrInvalidArgument. Default: the client's logger, with the component
// zkrecipes/atomicvalue (framework.Hooks.Logger).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error { return recipe.SetLogger(&o.logger, l, ErrInvalidArgument) }
}
