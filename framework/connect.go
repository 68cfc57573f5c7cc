package framework

import (
	"context"
	"fmt"
	"strings"
)

// Connect is New followed by WaitConnected. If ctx has no deadline, the
// wait is bounded by the connection timeout (WithConnectionTimeout), so
// that a dead address fails instead of blocking for good. If the wait ends
// first, the client is closed and the error wraps ErrUnreachable (and
// ErrNotConnected), the context's error and the last failure to reach a
// server, and says whose deadline ended the wait: the caller's context or
// the connection timeout. A credential of WithAuth that the server refuses
// fails Connect with an error wrapping ErrAuthFailed.
func Connect(ctx context.Context, servers []string, opts ...Option) (*Client, error) {
	c, err := New(servers, opts...)
	if err != nil {
		return nil, err
	}
	caller := ctx
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.connectionTimeout)
		defer cancel()
	}
	if err := c.WaitConnected(ctx); err != nil {
		if ctx.Err() != nil {
			err = c.unreachable(caller, ctx)
		}
		c.Close()
		return nil, err
	}
	return c, nil
}

// unreachable is the error of a Connect whose wait ended: caller is the
// caller's context, waited the one the wait ran under.
func (c *Client) unreachable(caller, waited context.Context) error {
	e := &unreachableError{servers: strings.Join(c.servers, ","), ctxErr: waited.Err()}
	e.whose = "the caller's context ended"
	if caller.Err() == nil {
		e.whose = fmt.Sprintf("the connection timeout (%v) ran out", c.cfg.connectionTimeout)
	}
	e.addr, e.last = c.reach.last()
	return e
}

// unreachableError is the error of a Connect that found no server in time.
type unreachableError struct {
	servers string
	whose   string // whose deadline ended the wait
	ctxErr  error
	addr    string // of the last failed attempt, if any
	last    error  // its failure
}

func (e *unreachableError) Error() string {
	msg := fmt.Sprintf("framework: connect to %s: no session before %s: %v: %v", e.servers, e.whose, ErrUnreachable, e.ctxErr)
	if e.last != nil {
		msg += fmt.Sprintf("; last attempt, %s: %v", e.addr, e.last)
	}
	return msg
}

// Unwrap gives the sentinels, the context's error and the last failure.
func (e *unreachableError) Unwrap() []error {
	errs := []error{ErrUnreachable, ErrNotConnected, e.ctxErr}
	if e.last != nil {
		errs = append(errs, e.last)
	}
	return errs
}
