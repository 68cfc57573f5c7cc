package node

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Option configures a Node.
type Option func(*options) error

type options struct {
	protected bool
	plain     bool // WithoutProtection
	ttl       time.Duration
	logger    *slog.Logger // nil: the client's
}

// WithProtection creates the node with a protection id in its name
// (framework.Client.CreateProtected, Curator's withProtection): a create
// whose answer was lost is found again, never repeated. Sequential modes
// always have it. Default: the node's name as given, for modes that are
// not sequential.
func WithProtection() Option {
	return func(o *options) error {
		o.protected = true
		return nil
	}
}

// WithoutProtection creates an ephemeral sequential node without a
// protection id in its name: <path><sequence>, as curator-x-discovery
// names its DYNAMIC_SEQUENTIAL instances, for readers that expect that
// name. A create whose answer was lost is still never sent again blindly:
// it goes out as a one-operation transaction, which the client never
// sends twice, and is found again as the ephemeral node of the session it
// was sent in, named <path><sequence>, that holds its data. Two Nodes of
// one client with the same path and data cannot tell their nodes apart
// that way: give each its own path or data. Only for EphemeralSequential,
// and not with WithProtection (ErrInvalidArgument otherwise). Default:
// sequential modes are protected.
func WithoutProtection() Option {
	return func(o *options) error {
		o.plain = true
		return nil
	}
}

// WithTTL sets the time to live of a TTL mode's node (the server deletes
// it once it has had no child and no write for ttl; it needs
// extendedTypesEnabled on the server). Required with PersistentTTL and
// PersistentSequentialTTL, rejected with other modes (ErrInvalidArgument).
func WithTTL(ttl time.Duration) Option {
	return func(o *options) error {
		if ttl <= 0 {
			return fmt.Errorf("%w: TTL %v", ErrInvalidArgument, ttl)
		}
		o.ttl = ttl
		return nil
	}
}

// WithLogger sets the logger of the node's own messages (a create that
// failed and is tried again). A nil logger is rejected with
// ErrInvalidArgument. Default: the client's logger, with the component
// zkrecipes/node (framework.Hooks.Logger).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error { return recipe.SetLogger(&o.logger, l, ErrInvalidArgument) }
}

func (n *Node) log() *slog.Logger {
	return recipe.Logger(n.opts.logger, n.client, "node")
}
