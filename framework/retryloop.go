package framework

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"
)

// sessionKey is the context key of BindSession.
type sessionKey struct{}

// BindSession returns a context whose calls must run in session s: a call
// made with it when the client is in another session, or has none, fails
// with ErrSessionChanged instead of running there. Recipes bind the calls
// that judge their ephemeral nodes to the session that created them.
func BindSession(ctx context.Context, s *Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

func boundSession(ctx context.Context) *Session {
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}

// connection returns the live connection and its session, waiting for one
// up to the connection timeout (ErrNotConnected, which is retryable), the
// end of ctx, Close, or the loss of the session ctx is bound to.
func (c *Client) connection(ctx context.Context) (*zk.Conn, *Session, error) {
	var boundLost <-chan struct{}
	if bound := boundSession(ctx); bound != nil {
		boundLost = bound.Lost()
	}
	var timeout <-chan time.Time
	for {
		c.mu.Lock()
		closed, connected, conn, session, ch := c.closed, c.connected, c.conn, c.session, c.connectedCh
		c.mu.Unlock()
		switch {
		case closed:
			return nil, nil, ErrClosed
		case connected && session != nil:
			return conn, session, nil
		}
		if timeout == nil {
			t := time.NewTimer(c.cfg.connectionTimeout)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-c.life.Done():
			return nil, nil, ErrClosed
		case <-boundLost:
			return nil, nil, ErrSessionChanged
		case <-timeout:
			return nil, nil, ErrNotConnected
		}
	}
}

// attempt is one try of an operation on a live connection.
type attempt[T any] func(conn *zk.Conn, session *Session) (T, error)

// retry runs fn until it succeeds, fails with an error that is not
// retryable, the retry policy gives up, or ctx ends. Before each try it
// waits for the connection, so retries are not spent while the link is down.
// An error is wrapped in an OpError naming op and path.
func retry[T any](ctx context.Context, c *Client, op, path string, fn attempt[T]) (T, error) {
	start := time.Now()
	bound := boundSession(ctx)
	for n := 0; ; n++ {
		v, err := try(ctx, c, bound, fn)
		if err == nil {
			return v, nil
		}
		if !IsRetryable(err) || ctx.Err() != nil {
			return v, opError(op, path, err) // v: a failed Multi's results
		}
		var zero T
		wait, ok := c.cfg.retry.AllowRetry(n, time.Since(start))
		if !ok {
			return zero, opError(op, path, err)
		}
		c.log.Debug("retrying", "op", op, "path", path, "attempt", n+1, "wait", wait, "err", err)
		if err := sleep(ctx, c.life, wait); err != nil {
			return zero, opError(op, path, err)
		}
	}
}

// result carries an attempt's outcome across goroutines.
type result[T any] struct {
	v   T
	err error
}

// try makes one attempt: waits for the connection, checks the bound
// session, and runs fn, returning early if ctx ends.
func try[T any](ctx context.Context, c *Client, bound *Session, fn attempt[T]) (T, error) {
	var zero T
	conn, session, err := c.connection(ctx)
	if err != nil {
		return zero, err
	}
	if bound != nil && bound != session {
		return zero, ErrSessionChanged
	}
	if bound != nil {
		fn = inBoundSession(fn)
	}
	if ctx.Done() == nil {
		return fn(conn, session)
	}
	// go-zookeeper calls cannot be cancelled: run the call aside and stop
	// waiting for it when ctx ends. The goroutine ends when go-zookeeper
	// answers, which it always does (reply, connection loss or close).
	done := make(chan result[T], 1)
	go func() {
		v, err := fn(conn, session)
		done <- result[T]{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// inBoundSession makes fn fail with ErrSessionChanged, keeping its value,
// unless it ran in the session it was given: the connection's session was
// that session's before the call and still is after it. go-zookeeper sends
// a request that was queued behind a broken connection on the next one,
// which may carry a new session; a write bound to the old session must not
// count there (its ephemeral nodes would belong to the new one).
func inBoundSession[T any](fn attempt[T]) attempt[T] {
	return func(conn *zk.Conn, session *Session) (T, error) {
		before := conn.SessionID()
		v, err := fn(conn, session)
		if before != session.id || conn.SessionID() != before {
			return v, ErrSessionChanged
		}
		return v, err
	}
}

// sleep waits for d, the end of ctx (its error) or of the client (ErrClosed).
func sleep(ctx, life context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-life.Done():
		return ErrClosed
	}
}

// isNoNode is errors.Is(err, zk.ErrNoNode), short for the many places that
// treat a missing node as an answer.
func isNoNode(err error) bool { return errors.Is(err, zk.ErrNoNode) }
