package main

import (
	"context"
	"fmt"
	"strconv"
)

// holdUntilSignal is `zkr lock PATH` without COMMAND, as `etcdctl lock`
// without one: it prints h's node and fencing token on stdout, as the
// variables COMMAND would get, and holds h until zkr gets SIGINT, SIGTERM
// or SIGHUP (then releases it: status 0), the hold is lost (status 5) or
// revoked (released: status 6).
func holdUntilSignal(ctx context.Context, e *env, h held, token func(context.Context) (int64, error)) error {
	t, err := token(ctx)
	if err != nil {
		releaseHeld(e, h)
		return fmt.Errorf("%s: %w", h.what, err)
	}
	for _, v := range append(h.env, "ZKR_FENCING_TOKEN="+strconv.FormatInt(t, 10)) {
		fmt.Fprintln(e.stdout, v)
	}
	select {
	case <-e.signals:
		releaseHeld(e, h)
		return nil
	case <-h.lost:
		reason := fmt.Errorf("%w: %s: %v", errLostHold, h.what, h.err())
		releaseHeld(e, h) // deletes the node if it is still there
		return reason
	case <-h.revoked:
		releaseHeld(e, h)
		return fmt.Errorf("%w: %s: revocation requested", errRevoked, h.what)
	}
}
