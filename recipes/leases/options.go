package leases

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Option configures a Lease.
type Option func(*options) error

type options struct {
	policy  framework.ErrorPolicy
	maxHold time.Duration
	kind    string       // the recipe in observer events (WithKind); "" is "lease"
	what    string       // the lease in log lines (WithKind)
	kindSet bool         // WithKind was given: what is what it says
	logger  *slog.Logger // nil: the client's (WithLogger)
}

// WithErrorPolicy chooses when a lease counts as lost: at Suspended
// (framework.StandardErrorPolicy) or only at Lost
// (framework.SessionErrorPolicy). Under either, the hold also ends when
// its session's lease runs out (framework.Session.LeaseDeadline), before
// the server can expire the session. Default:
// framework.StandardErrorPolicy.
func WithErrorPolicy(p framework.ErrorPolicy) Option {
	return func(o *options) error { return recipe.SetErrorPolicy(&o.policy, p, ErrInvalidArgument) }
}

// WithMaxHold bounds how long the lease may be held: once d has passed
// since it was issued, a timer of the holder's process releases it (deletes
// the node) and signals it lost with an error wrapping ErrExpired, so that
// a holder stuck in a goroutine cannot keep the permit for ever. Default:
// no bound.
func WithMaxHold(d time.Duration) Option {
	return func(o *options) error { return recipe.SetMaxHold(&o.maxHold, d, ErrInvalidArgument) }
}

// WithKind names what the lease serves in what it reports, for the recipes
// that issue leases, as mutex.WithKind does for locks. kind is the recipe
// in the client's observer's events (framework.HoldEvent.Recipe), such as
// "semaphore". what names the lease in log lines ("lease lost"); an empty
// what leaves the telling of a loss to the recipe that issued the lease.
// An empty kind is rejected with ErrInvalidArgument. Default "lease" and
// "lease".
func WithKind(kind, what string) Option {
	return func(o *options) error {
		if kind == "" {
			return fmt.Errorf("%w: empty kind", ErrInvalidArgument)
		}
		o.kind, o.what, o.kindSet = kind, what, true
		return nil
	}
}

// whatOr is the lease's name in log lines.
func (o options) whatOr() string {
	if !o.kindSet {
		return "lease"
	}
	return o.what
}

// kindOr is the lease's recipe in observer events.
func (o options) kindOr() string {
	if o.kind == "" {
		return "lease"
	}
	return o.kind
}

// WithLogger sets the logger of the lease's own messages (a hold lost, a
// clean-up left to the background). A nil logger is rejected with
// ErrInvalidArgument. Default: the client's logger, with the component
// zkrecipes/leases (framework.Hooks.Logger).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error { return recipe.SetLogger(&o.logger, l, ErrInvalidArgument) }
}

// log returns the lease's logger: WithLogger's, or the client's.
func (l *Lease) log() *slog.Logger {
	return recipe.Logger(l.opts.logger, l.client, "leases")
}
