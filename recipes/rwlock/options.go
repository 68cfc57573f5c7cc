package rwlock

import (
	"log/slog"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// Option configures a ReadWriteLock.
type Option func(*options) error

type options struct {
	data   []byte
	policy framework.ErrorPolicy
	logger *slog.Logger // nil: the client's (WithLogger)
}

// WithData sets the data of the lock nodes of both kinds, shown to
// operators and to other participants. Default: empty.
func WithData(data []byte) Option {
	return func(o *options) error {
		o.data = append([]byte(nil), data...)
		return nil
	}
}

// WithErrorPolicy chooses when a hold counts as lost: at Suspended
// (framework.StandardErrorPolicy) or only at Lost
// (framework.SessionErrorPolicy). Under either, the hold also ends when
// its session's lease runs out (framework.Session.LeaseDeadline), before
// the server can expire the session. Default:
// framework.StandardErrorPolicy.
func WithErrorPolicy(p framework.ErrorPolicy) Option {
	return func(o *options) error { return recipe.SetErrorPolicy(&o.policy, p, ErrInvalidArgument) }
}

// mutexOptions are the options of both locks' engines.
func (o options) mutexOptions() []mutex.Option {
	opts := []mutex.Option{mutex.WithData(o.data), mutex.WithErrorPolicy(o.policy)}
	if o.logger != nil {
		opts = append(opts, mutex.WithLogger(o.logger))
	}
	return opts
}

// WithLogger sets the logger of the read/write lock's own messages (a hold lost, a
// clean-up left to the background). A nil logger is rejected with
// ErrInvalidArgument. Default: the client's logger, with the component
// zkrecipes/rwlock (framework.Hooks.Logger).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error { return recipe.SetLogger(&o.logger, l, ErrInvalidArgument) }
}
