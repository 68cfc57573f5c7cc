package queue

import (
	"fmt"
	"log/slog"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Option configures a queue (New, NewPriorityQueue, NewDelayQueue,
// NewIDQueue, NewSimple) or its Consumer (NewConsumer, NewTxConsumer).
// Each option's doc says which; the other refuses it with
// ErrInvalidArgument.
type Option func(*options) error

type options struct {
	lockPath string
	maxItems int          // 0: unbounded
	logger   *slog.Logger // nil: the client's (WithLogger)
	consumer consumerOptions
	parts    recipe.Parts // what each option given configures
}

// What an Option configures.
const (
	queuePart    = "a queue"
	consumerPart = "a consumer"
)

// WithLockPath gives the queue a lock path, Curator's
// QueueBuilder.lockPath: a directory (created persistent, as Curator
// creates it) in which a consumer holds an ephemeral lock node named after
// each item while its function runs, so that the item is deleted only after
// the function has returned: the lock-safe mode, at least once. Consumers
// of one queue, Go or Java, must share the lock path. A producer keeps
// there its put marker, the ephemeral node that makes a put whose answer
// was lost neither lost nor repeated (see Queue.Put). A queue's option.
// Default: none; consumers delete an item before calling their function (at
// most once), and a put whose answer was lost fails with ErrOutcomeUnknown.
func WithLockPath(path string) Option {
	return func(o *options) error {
		if err := zkpath.Validate(path); err != nil || path == "/" {
			return fmt.Errorf("%w: lock path %q: %w", ErrInvalidArgument, path, err)
		}
		o.lockPath = path
		o.parts.Configures("WithLockPath", queuePart)
		return nil
	}
}

// WithMaxItems bounds the queue, Curator's QueueBuilder.maxItems: a put
// waits while the queue's directory holds n children or more. The bound is
// approximate, as Curator's: producers that look at once may all find room.
// Each put of a bounded queue lists the directory first. n must be
// positive. A queue's option. Default: unbounded.
func WithMaxItems(n int) Option {
	return func(o *options) error {
		if n <= 0 {
			return fmt.Errorf("%w: maximum of %d items", ErrInvalidArgument, n)
		}
		o.maxItems = n
		o.parts.Configures("WithMaxItems", queuePart)
		return nil
	}
}

// WithLogger sets the logger of the queue and its consumers (a malformed or
// foreign node, a consumer's function that failed, a clean-up that failed).
// A nil logger is ErrInvalidArgument. A queue's option. Default: the
// client's logger, with the component zkrecipes/queue
// (framework.Hooks.Logger).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error {
		if err := recipe.SetLogger(&o.logger, l, ErrInvalidArgument); err != nil {
			return err
		}
		o.parts.Configures("WithLogger", queuePart)
		return nil
	}
}

// consumerOptions are a consumer's options.
type consumerOptions struct {
	concurrency int
	errorMode   ErrorMode
	refresh     int  // items of a batch before a changed queue is listed again; 0: never
	refreshSet  bool // refresh was given
}

// ErrorMode says what a lock-safe consumer does with an item whose
// function failed: Curator's ErrorMode.
type ErrorMode int

const (
	// Requeue puts the item back at the end of the queue, under its own
	// priority, epoch or id, in one transaction with its delete (Curator's
	// REQUEUE, the default).
	Requeue ErrorMode = iota
	// Delete deletes the item as if the function had succeeded (Curator's
	// DELETE).
	Delete
)

// String names the mode.
func (m ErrorMode) String() string {
	switch m {
	case Requeue:
		return "requeue"
	case Delete:
		return "delete"
	}
	return fmt.Sprintf("ErrorMode(%d)", int(m))
}

// WithConcurrency lets the consumer run its function on up to n items at
// once, each on a goroutine of its own (Curator's executor). It also bounds
// the items in memory: n nodes' data at most. n must be positive. A
// consumer's option. Default: 1, one item after another in the queue's
// order.
func WithConcurrency(n int) Option {
	return func(o *options) error {
		if n <= 0 {
			return fmt.Errorf("%w: concurrency %d", ErrInvalidArgument, n)
		}
		o.consumer.concurrency = n
		o.parts.Configures("WithConcurrency", consumerPart)
		return nil
	}
}

// WithErrorMode sets what a consumer does with an item whose function
// failed, in the lock-safe and transactional modes (without a lock path the
// item is deleted before the function runs). A consumer's option. Default:
// Requeue.
func WithErrorMode(m ErrorMode) Option {
	return func(o *options) error {
		if m != Requeue && m != Delete {
			return fmt.Errorf("%w: error mode %v", ErrInvalidArgument, m)
		}
		o.consumer.errorMode = m
		o.parts.Configures("WithErrorMode", consumerPart)
		return nil
	}
}

// WithMinItemsBeforeRefresh makes the consumer list the queue again in the
// middle of a batch once it has taken n items of it and the queue has
// changed since the batch was listed, Curator's minItemsBeforeRefresh: so
// an item of higher priority put meanwhile goes before the rest of the
// batch. Each item a consumer takes changes the queue, so n = 1 costs a
// listing per item; a larger n trades order for requests. n must not be
// negative; 0 never refreshes. A consumer's option. Default: 1 for a
// PriorityQueue's consumer, 0 for the others.
func WithMinItemsBeforeRefresh(n int) Option {
	return func(o *options) error {
		if n < 0 {
			return fmt.Errorf("%w: minimum of %d items before a refresh", ErrInvalidArgument, n)
		}
		o.consumer.refresh, o.consumer.refreshSet = n, true
		o.parts.Configures("WithMinItemsBeforeRefresh", consumerPart)
		return nil
	}
}
