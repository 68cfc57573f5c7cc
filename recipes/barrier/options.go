package barrier

import (
	"log/slog"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Option configures a Barrier or a Double.
type Option func(*options) error

type options struct {
	logger *slog.Logger // nil: the client's (WithLogger)
}

// WithLogger sets the logger of the barrier's own messages (a member node
// or a ready node that could not be deleted). A nil logger is rejected
// with ErrInvalidArgument. Default: the client's logger, with the
// component zkrecipes/barrier (framework.Hooks.Logger).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error { return recipe.SetLogger(&o.logger, l, ErrInvalidArgument) }
}

// logger returns the logger of o: WithLogger's, or the client's.
func (o options) log(client *framework.Client) *slog.Logger {
	return recipe.Logger(o.logger, client, "barrier")
}
