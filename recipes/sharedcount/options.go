package sharedcount

import (
	"log/slog"

	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Option configures a SharedCount.
type Option func(*options) error

type options struct {
	noCreate bool
	logger   *slog.Logger // nil: the client's (WithLogger)
}

// WithoutCreate makes reads fail with an error wrapping zk.ErrNoNode when
// the node is missing, instead of creating it with the seed: for readers
// that must never write, or lack the permission to. Default: a read creates
// a missing node with the seed, as Curator's SharedCount.start does.
func WithoutCreate() Option {
	return func(o *options) error {
		o.noCreate = true
		return nil
	}
}

// WithLogger sets the logger of the shared count's own messages (a malformed count, a watch
// that ends). A nil logger is rejected with
// ErrInvalidArgument. Default: the client's logger, with the component
// zkrecipes/sharedcount (framework.Hooks.Logger).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error { return recipe.SetLogger(&o.logger, l, ErrInvalidArgument) }
}

// log returns the count's logger: WithLogger's, or the client's.
func (s *SharedCount) log() *slog.Logger {
	return recipe.Logger(s.opts.logger, s.client, "sharedcount")
}
