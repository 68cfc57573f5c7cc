package framework

import (
	"context"
	"errors"
	"fmt"
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
// end of ctx, Close, the loss of the session ctx is bound to, or the
// server's refusal of the client's credentials (ErrAuthFailed, final).
func (c *Client) connection(ctx context.Context) (*zk.Conn, *Session, error) {
	var boundLost <-chan struct{}
	if bound := boundSession(ctx); bound != nil {
		boundLost = bound.Lost()
	}
	var timeout <-chan time.Time
	for {
		c.mu.Lock()
		closed, connected, conn, session, ch, refused := c.closed, c.connected, c.conn, c.session, c.connectedCh, c.auth.refused
		c.mu.Unlock()
		switch {
		case closed:
			return nil, nil, ErrClosed
		case connected && session != nil:
			return conn, session, nil
		case refused != nil:
			return nil, nil, refused // final: no connection is coming
		}
		if timeout == nil {
			t := time.NewTimer(c.cfg.connectionTimeout)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-ch:
		case <-c.authRefused:
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
	return retryMaking(ctx, c, op, path, fn, nil)
}

// retryMaking is retry for a write that creates nodes, which made names
// from a try's value: under a ctx bound to a session, what a try created
// in another session is deleted (see inBoundSession).
func retryMaking[T any](ctx context.Context, c *Client, op, path string, fn attempt[T], made madeBy[T]) (T, error) {
	return retrySteps(ctx, c, op, path, func() (T, error) { return try(ctx, c, op, path, fn, made) })
}

// retrySteps is the retry loop itself, written once for every call: it
// makes tries until one succeeds, fails with an error that is not
// retryable, the retry policy gives up, or ctx ends, sleeping between
// tries as the policy says. An error is wrapped in an OpError.
func retrySteps[T any](ctx context.Context, c *Client, op, path string, try func() (T, error)) (T, error) {
	start := time.Now()
	observer := c.cfg.observer
	for n := 0; ; n++ {
		var began time.Time
		if observer != nil {
			began = time.Now()
		}
		v, err := try()
		if observer != nil {
			c.observeTry(op, path, began, err)
		}
		if err == nil {
			return v, nil
		}
		if !IsRetryable(err) {
			return v, opError(op, path, err) // v: a failed Multi's results
		}
		if cerr := ctx.Err(); cerr != nil {
			// The call ends for ctx's sake, which it says: it would try
			// again otherwise. A try that waited for the connection may
			// end with ctx's deadline, and fail as it does.
			return v, opError(op, path, fmt.Errorf("%w: %w", cerr, err))
		}
		var zero T
		switch werr := c.retryWait(ctx, n, start); {
		case errors.Is(werr, ErrRetriesExhausted):
			return zero, opError(op, path, err)
		case werr != nil:
			return zero, opError(op, path, werr)
		}
		c.log.Debug("retried", "op", op, "path", path, "attempt", n+1, "err", err)
		if observer != nil {
			observer.OnRetry(RetryEvent{Op: op, Path: path, Attempt: n + 1, Err: err})
		}
	}
}

// retryWait asks the retry policy whether another try may follow attempt
// failed ones (counted from 0) since start, and if so sleeps as long as it
// says, or until the client connects again if it is disconnected now: the
// wait was for the connection, and a backoff grown during a long outage
// (a server restart under load) must not be slept out after it. It
// returns nil to go on; otherwise ErrRetriesExhausted, the error of ctx,
// or ErrClosed.
func (c *Client) retryWait(ctx context.Context, attempt int, start time.Time) error {
	wait, ok := c.cfg.retry.AllowRetry(attempt, time.Since(start))
	if !ok {
		return ErrRetriesExhausted
	}
	return sleepUntil(ctx, c.life, wait, c.reconnected())
}

// reconnected returns a channel closed when the client is connected
// again, or nil while it is connected.
func (c *Client) reconnected() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.connected {
		return nil
	}
	return c.connectedCh
}

// boundConnection returns the live connection and its session for one try
// under ctx: it waits for the connection, and fails with ErrSessionChanged
// when ctx is bound to another session.
func (c *Client) boundConnection(ctx context.Context) (*zk.Conn, *Session, error) {
	conn, session, err := c.connection(ctx)
	if err != nil {
		return nil, nil, err
	}
	if bound := boundSession(ctx); bound != nil && bound != session {
		return nil, nil, ErrSessionChanged
	}
	return conn, session, nil
}

// try makes one attempt of op on path: waits for the connection, checks
// the bound session, and runs fn, returning early if ctx ends.
func try[T any](ctx context.Context, c *Client, op, path string, fn attempt[T], made madeBy[T]) (T, error) {
	conn, session, err := c.boundConnection(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err // nothing sent: a plain failure
	}
	bound := boundSession(ctx) != nil
	var writes string
	if bound {
		writes = c.writtenBy(op, path)
	}
	if ctx.Done() == nil {
		// As Aside would, on this goroutine, without a closure.
		if !c.calls.enter() {
			var zero T
			return zero, ErrClosed
		}
		defer c.calls.leave()
		if bound {
			return runBound(c, writes, fn, made, conn, session)
		}
		return fn(conn, session)
	}
	v, _, abandoned, err := answerOrAbandon(ctx, func() (T, error) {
		// Counted until it returns, abandoned or not: Close waits for it.
		if !c.calls.enter() {
			var zero T
			return zero, ErrClosed
		}
		defer c.calls.leave()
		if bound {
			return runBound(c, writes, fn, made, conn, session)
		}
		return fn(conn, session)
	})
	if abandoned {
		return v, abandonedTry{err}
	}
	return v, err
}

// abandonedTry is the error of a try left running when its ctx ended: its
// request may still reach the server, however late, so a write's outcome
// is unknown (see retryWrite). It reads and unwraps as the error of ctx.
type abandonedTry struct{ err error }

func (e abandonedTry) Error() string { return e.err.Error() }
func (e abandonedTry) Unwrap() error { return e.err }

// isAbandoned reports whether err ended a call whose last try was left
// running.
func isAbandoned(err error) bool {
	var a abandonedTry
	return errors.As(err, &a)
}

// Aside runs call, which cannot be cancelled (as no go-zookeeper call can),
// and returns its result, or the error of ctx if ctx ends first. The call
// then runs on, on a goroutine of its own that ends when it returns, and
// finished is closed at that moment, so that the caller can clean up what
// it may still make. A call that has returned by the time ctx's end is
// seen gives its own result. With a ctx that cannot end, call runs on the
// caller's goroutine. It is for recipe authors, like the calls of Hooks.
func Aside[T any](ctx context.Context, call func() (T, error)) (v T, finished <-chan struct{}, err error) {
	v, finished, _, err = answerOrAbandon(ctx, call)
	return v, finished, err
}

// answerOrAbandon is Aside that also says whether it gave up on the call:
// abandoned is true when ctx ended while the call ran on, and err is then
// the error of ctx. A call that had returned is never abandoned, so a
// write the server applied is never reported failed for a ctx that ended
// as its answer came.
func answerOrAbandon[T any](ctx context.Context, call func() (T, error)) (v T, finished <-chan struct{}, abandoned bool, err error) {
	if ctx.Done() == nil {
		v, err = call()
		return v, closedChan, false, err
	}
	r := &asideCall[T]{done: make(chan struct{})}
	// Ends when call returns: go-zookeeper always answers (a reply,
	// connection loss, or Close).
	go r.run(call)
	select {
	case <-r.done:
		return r.v, r.done, false, r.err
	case <-ctx.Done():
	}
	select {
	case <-r.done: // answered as ctx ended: the answer stands
		return r.v, r.done, false, r.err
	default:
		return v, r.done, true, ctx.Err()
	}
}

// asideCall is a call running aside: its result, set before done closes.
type asideCall[T any] struct {
	v    T
	err  error
	done chan struct{}
}

func (r *asideCall[T]) run(call func() (T, error)) {
	defer close(r.done)
	r.v, r.err = call()
}

// closedChan is the finished channel of an Aside that ran on the caller's
// goroutine: closed once, never written, so sharing it is safe, and such
// an Aside (the common case) allocates nothing of its own.
var closedChan = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

// inBoundSession makes fn fail with ErrSessionChanged, keeping its value,
// unless it ran in the session it was given: the connection's session was
// that session's before the call and still is after it. go-zookeeper sends
// a request that was queued behind a broken connection on the next one,
// which may carry a new session; a write bound to the old session must not
// count there (its ephemeral nodes would belong to the new one). The
// connection wrapper refuses such a request (see runBound); what a try
// made there all the same (made, from its value) is deleted. The check is part of
// the try itself, so a try abandoned when its ctx ended is still judged
// when it finishes: this is the one place where a bound write's nodes in
// another session are found.
func inBoundSession[T any](c *Client, writes string, fn attempt[T], made madeBy[T]) attempt[T] {
	return func(conn *zk.Conn, session *Session) (T, error) {
		return runBound(c, writes, fn, made, conn, session)
	}
}

// runBound is one call of inBoundSession(c, writes, fn, made). A
// connection already in another session sends nothing: go-zookeeper may
// have started a new session before the client has seen it, and a delete,
// a set or a transaction's guard run there would stay applied (only what
// a try created can be undone). A request go-zookeeper queued before a new
// session began is refused by the connection wrapper, for the server path
// fn writes (writes; "" for a read), until fn returns (see wire.BoundWrites).
func runBound[T any](c *Client, writes string, fn attempt[T], made madeBy[T], conn *zk.Conn, session *Session) (T, error) {
	before := conn.SessionID()
	if before != session.id {
		var zero T
		return zero, ErrSessionChanged // nothing sent
	}
	if writes != "" {
		// Before the request exists: the wrapper sees it written.
		w := c.bound.Add(writes, session.id)
		defer w.Done()
	}
	v, err := fn(conn, session)
	after := conn.SessionID()
	if before == session.id && after == before {
		return v, err
	}
	if err == nil && made != nil {
		for _, n := range made(v) {
			c.log.Debug("a bound write ran in another session; deleting what it made", "path", n.path)
			c.deleteOwnedInBackground(n.path, n.owner(after))
		}
	}
	return v, ErrSessionChanged
}

// madeBy names the nodes a successful try created, from its value.
type madeBy[T any] func(v T) []madeNode

// madeNode is a node a write created, by server path.
type madeNode struct {
	path      string
	ephemeral bool
}

// owner returns the ephemeral owner the node has if it was made in
// session: session for an ephemeral node, none (0) for a persistent one.
func (n madeNode) owner(session int64) int64 {
	if n.ephemeral {
		return session
	}
	return 0
}

// writtenBy returns the server path a try of op on path (a client path
// the call has validated) writes, or "" for an op that writes nothing.
func (c *Client) writtenBy(op, path string) string {
	switch op {
	case "create", "delete", "set":
		return c.withNamespace(path)
	}
	return ""
}

// leftBound reports whether ctx is bound to session and go-zookeeper's
// connection has already left it, in a new session the client has not
// seen yet: a try must then send nothing (see runBound).
func leftBound(ctx context.Context, conn *zk.Conn, session *Session) bool {
	return boundSession(ctx) != nil && conn.SessionID() != session.id
}

// runInSession runs call on conn and reports whether it ran in session:
// the connection's session was that session before the call and still is
// after it.
func runInSession[T any](conn *zk.Conn, session *Session, call func() (T, error)) (v T, in bool, err error) {
	before := conn.SessionID()
	v, err = call()
	return v, before == session.id && conn.SessionID() == before, err
}

// sleep waits for d, the end of ctx (its error) or of the client (ErrClosed).
func sleep(ctx, life context.Context, d time.Duration) error {
	return sleepUntil(ctx, life, d, nil)
}

// sleepUntil is sleep that also ends, with nil, when wake is closed.
func sleepUntil(ctx, life context.Context, d time.Duration, wake <-chan struct{}) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-wake:
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
