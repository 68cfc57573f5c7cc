package mutex

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// WithMaxHold bounds every hold in time: once d has passed since the
// acquire or the hold's last Renew, on the holder's own monotonic clock,
// the holder's process gives the lock up itself (deletes its node) and
// signals the hold lost with an error wrapping ErrExpired, so that an
// owner stuck in its work while its session stays up cannot keep the lock
// for ever. Renew from the work, or let a leases.Keeper renew while a
// context lives. Unlike a lease's, a hold's renewal is local: it sends no
// request and never writes the lock node, whose data is the channel of
// revocation requests (WithRevocation) and Curator's. Default: no bound.
func WithMaxHold(d time.Duration) Option {
	return func(o *options) error { return recipe.SetMaxHold(&o.maxHold, d, ErrInvalidArgument) }
}

// MaxHold returns the time the hold may go without a renewal
// (WithMaxHold), 0 for a hold without a bound.
func (h *Hold) MaxHold() time.Duration { return h.m.opts.maxHold }

// Renew proves that the owner is alive: it moves the hold's deadline to
// MaxHold from now. It sends no request, so ctx is not used (it is there
// for leases.Renewer). Whoever has the Hold may renew it. A hold that has
// ended is not renewed: after a loss the error wraps ErrLost (and
// ErrExpired if the bound passed), after the final release ErrReleased; a
// hold without a bound gives ErrInvalidArgument.
func (h *Hold) Renew(ctx context.Context) error {
	if h.MaxHold() == 0 {
		return fmt.Errorf("%w: renew %s: the mutex has no maximum hold time", ErrInvalidArgument, h.Node())
	}
	err := h.watch.Renew(time.Now())
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrLost):
		return fmt.Errorf("%s: renew %s: %w", h.m.opts.name, h.Node(), err)
	}
	return fmt.Errorf("%s: renew %s: %w", h.m.opts.name, h.Node(), ErrReleased)
}
