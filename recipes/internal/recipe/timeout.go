package recipe

import (
	"context"
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
)

// ErrSeenHeld is wrapped, with the context's error, by the error of a wait
// that ended while the waiter had the server's word that others held what
// it waited for, and was watching for that to change.
var ErrSeenHeld = errors.New("held by others when the wait ended")

// SeenHeld returns the error of a wait on holders that ended with ctx.
func SeenHeld(ctx context.Context) error {
	return fmt.Errorf("%w: %w", ErrSeenHeld, ctx.Err())
}

// TimeoutError turns the error of an acquire bounded by a timeout (a
// context derived from ctx) into what the caller sees. If the timeout ran
// out while the waiter saw others hold the lock and the client was
// connected, that is zkrecipes.ErrNotAcquired; if it ran out while the
// server could not be reached, or before its answer came, it is
// zkrecipes.ErrUnreachable with the connection's last failure: nobody can
// say whether the lock was free. Other errors, and the end of ctx itself,
// are returned as they are. what names the recipe, its act and its path.
func TimeoutError(ctx context.Context, client *framework.Client, err error, what string) error {
	if err == nil || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, ErrSeenHeld) && client.IsConnected() {
		return fmt.Errorf("%s: %w", what, zkrecipes.ErrNotAcquired)
	}
	if cerr := client.ConnectionError(); cerr != nil {
		return fmt.Errorf("%s: %w: %w", what, zkrecipes.ErrUnreachable, cerr)
	}
	return fmt.Errorf("%s: %w: no answer in time: %w", what, zkrecipes.ErrUnreachable, err)
}
