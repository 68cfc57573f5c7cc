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
// server could not be reached, it is zkrecipes.ErrUnreachable with the
// connection's last failure: nobody can say whether the lock was free. If
// it ran out before an answer while the connection stood (a deadline
// shorter than a round trip), errors.Is still finds ErrUnreachable, for
// the same reason, but the message says that the deadline ran out before
// the server answered: a log must not call a healthy server unreachable.
// Other errors, and the end of ctx itself, are returned as they are. what
// names the recipe, its act and its path.
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
	return &noAnswer{what: what, err: err}
}

// noAnswer is the error of a timed wait whose deadline ran out before the
// server answered, the connection standing: ErrUnreachable to errors.Is,
// in words what happened.
type noAnswer struct {
	what string
	err  error // the wait's, wrapping context.DeadlineExceeded
}

func (e *noAnswer) Error() string {
	return e.what + ": the deadline ran out before the server answered: " + e.err.Error()
}

func (e *noAnswer) Unwrap() []error { return []error{zkrecipes.ErrUnreachable, e.err} }
