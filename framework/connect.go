package framework

import (
	"context"
	"errors"
	"fmt"
	"net"
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
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.cfg.connectionTimeout,
			fmt.Errorf("the connection timeout (%v) ran out", c.cfg.connectionTimeout))
		defer cancel()
	}
	if err := c.WaitConnected(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// unreachable is the error of a wait for a connection that ctx ended.
func (c *Client) unreachable(ctx context.Context) error {
	e := &unreachableError{servers: strings.Join(c.serverList(), ","), ctxErr: ctx.Err()}
	e.whose = fmt.Sprintf("the caller's context ended (%v)", e.ctxErr)
	if cause := context.Cause(ctx); cause != nil && cause != e.ctxErr {
		e.whose = cause.Error() // says itself whose deadline it was
	}
	e.last = c.lastAttempt()
	return e
}

// unreachableError is the error of a wait that found no server in time.
// It says each thing once: the servers, whose deadline ended the wait,
// and the last failure to reach a server.
type unreachableError struct {
	servers string
	whose   string // whose deadline ended the wait
	ctxErr  error
	last    error // the last failure to reach a server (an attemptError), if any
}

func (e *unreachableError) Error() string {
	msg := fmt.Sprintf("framework: unreachable: no session with %s before %s", e.servers, e.whose)
	if e.last != nil {
		msg += "; " + e.last.Error()
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

// attemptError is the last failure to reach a server, said once: without
// the dial's own "dial tcp ADDR:", and without the address when the
// client has only that one server.
type attemptError struct {
	addr  string // the address dialled
	only  bool   // the client's only server
	cause error
}

func (e attemptError) Error() string {
	text := e.cause.Error()
	var op *net.OpError
	if errors.As(e.cause, &op) && op.Err != nil {
		text = op.Err.Error()
	}
	if e.only {
		return "last attempt: " + text
	}
	return "last attempt, " + e.addr + ": " + text
}

func (e attemptError) Unwrap() error { return e.cause }

// lastAttempt returns the last failure to reach a server since the client
// was last connected, or nil.
func (c *Client) lastAttempt() error {
	addr, err := c.reach.last()
	if err == nil {
		return nil
	}
	return attemptError{addr: addr, only: c.onlyServer(addr), cause: err}
}
