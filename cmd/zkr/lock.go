package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// lockHelp is the longer help of `zkr lock`.
const lockHelp = `Waits for the mutex at PATH, runs COMMAND while it holds it, releases it
when COMMAND exits, and exits with COMMAND's status. The mutex is Curator's
InterProcessMutex: Go and Java (Curator 5.x) processes on the same PATH
exclude zkr, and zkr excludes them.

Without COMMAND (as etcdctl lock), zkr holds the mutex, prints
  ZKR_LOCK_NODE=<the lock node's path>
  ZKR_FENCING_TOKEN=<its token>
on stdout once it holds it, and holds it until SIGINT, SIGTERM or SIGHUP,
then releases it and exits 0; it exits 5 if the hold is lost first, 6 if
revoked (--revocable).

COMMAND runs in a process group of its own, with what it starts: SIGINT,
SIGTERM and SIGHUP to zkr are passed on to the group; when the hold ends
(lost, revoked, or COMMAND exited) whatever is left of the group gets
SIGTERM, SIGKILL after --grace, before the lock is released; each signal
is followed by SIGCONT, so that a stopped process gets it. Being in a
group of its own, COMMAND cannot read from the terminal (it is stopped
when it tries; Ctrl-C still ends it). If zkr is killed
with SIGKILL, COMMAND gets SIGTERM (Linux) but what it started does not:
it runs on, without the lock, unless COMMAND stops it.

COMMAND's environment has
  ZKR_FENCING_TOKEN  the lock node's creation zxid: it grows from one holder
                     to the next, so the resource COMMAND guards can refuse a
                     stale holder that still believes it holds the lock
  ZKR_LOCK_NODE      the lock node's path (for zkr revoke)

The hold is lost when the connection is suspended (about two thirds of
--session-timeout without the server), when the session's lease runs out
(no answer to a request sent within 95 % of --session-timeout, even while
the server's packets still arrive), the session expires, or someone
deletes the node. With --on-lost=term (the default) COMMAND then gets
SIGTERM, SIGKILL after --grace, and zkr exits 5. A restart of a server,
even a rolling restart of an ensemble, suspends the connection; with
--error-policy session the hold is lost only when the session is, or
its lease runs out (the hold outlives a disconnect shorter than the lease
left), so such jobs run on.`

// acquireFlags are the flags of every command that waits for a hold.
type acquireFlags struct {
	timeout    time.Duration
	hasTimeout bool
	policy     framework.ErrorPolicy
	childFlags
}

// register registers the waiting and child flags on fs.
func (a *acquireFlags) register(fs *flag.FlagSet) {
	a.registerTimeout(fs, "give up waiting after `duration`, the connection included, with status 4 (3 if no session by then; 0: one try); default: wait as long as it takes")
	a.childFlags.register(fs)
	fs.Func("error-policy", "`policy` when the connection is suspended: standard (the hold is lost) or session "+
		"(lost when the session is or its lease runs out; rides out a short server restart) (default standard)",
		func(s string) error {
			switch s {
			case "standard":
				a.policy = framework.StandardErrorPolicy
			case "session":
				a.policy = framework.SessionErrorPolicy
			default:
				return fmt.Errorf("takes standard or session, not %q", s)
			}
			return nil
		})
}

// registerTimeout registers --timeout on fs, with its usage.
func (a *acquireFlags) registerTimeout(fs *flag.FlagSet, usage string) {
	fs.Func("timeout", usage, func(s string) error {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return fmt.Errorf("bad duration %q", s)
		}
		a.timeout, a.hasTimeout = d, true
		return nil
	})
}

// setupLock is `zkr lock PATH -- COMMAND`.
func setupLock(fs *flag.FlagSet, conn *connFlags) runFunc {
	var a acquireFlags
	a.register(fs)
	revocable := fs.Bool("revocable", false, "stop COMMAND and release, exiting 6, when 'zkr revoke' asks")
	return func(ctx context.Context, e *env, args, child []string) error {
		if err := a.check(); err != nil {
			return err
		}
		client, err := conn.newClient(e)
		if err != nil {
			return err
		}
		defer client.Close()
		revoked := make(chan struct{})
		var once sync.Once
		opts := []mutex.Option{mutex.WithData(nodeData(child)), mutex.WithErrorPolicy(a.policy)}
		if *revocable {
			opts = append(opts, mutex.WithRevocation(func(*mutex.Hold) { once.Do(func() { close(revoked) }) }))
		}
		m, err := mutex.New(client, args[0], opts...)
		if err != nil {
			return err
		}
		hold, err := waitFor(ctx, e, conn, client, a, "lock "+args[0], func(ctx context.Context, timeout time.Duration) (*mutex.Hold, error) {
			if timeout >= 0 {
				return m.AcquireTimeout(ctx, timeout)
			}
			return m.Acquire(ctx)
		}, releaseHold)
		if err != nil {
			return err
		}
		var revocation <-chan struct{} // nil: COMMAND is never asked to stop
		if *revocable {
			revocation = revoked
		}
		if child == nil {
			return holdUntilSignal(ctx, e, lockHeld("lock "+args[0], hold, revocation), hold.FencingToken)
		}
		return runUnderHold(ctx, e, "lock "+args[0], hold, revocation, child, a)
	}
}

// runUnderHold runs COMMAND while hold lasts, with the lock node and its
// fencing token in COMMAND's environment; revoked, if not nil, is closed
// when the holder is asked to release.
func runUnderHold(ctx context.Context, e *env, what string, hold *mutex.Hold, revoked <-chan struct{}, child []string, a acquireFlags) error {
	return runWithToken(ctx, e, lockHeld(what, hold, revoked), hold.FencingToken, child, a.childFlags)
}

// lockHeld describes a lock hold for runHolding and holdUntilSignal.
func lockHeld(what string, hold *mutex.Hold, revoked <-chan struct{}) held {
	return held{
		what: what, lost: hold.Lost(), err: hold.Err, revoked: revoked,
		env:     []string{"ZKR_LOCK_NODE=" + hold.Node()},
		release: hold.Release,
	}
}

// runWithToken reads the hold's fencing token and runs COMMAND under h
// with the token in its environment; if the token cannot be read, h is
// released and COMMAND never starts.
func runWithToken(ctx context.Context, e *env, h held, token func(context.Context) (int64, error), child []string, f childFlags) error {
	t, err := token(ctx)
	if err != nil {
		releaseHeld(e, h)
		return fmt.Errorf("%s: %w", h.what, err)
	}
	h.env = append(h.env, "ZKR_FENCING_TOKEN="+strconv.FormatInt(t, 10))
	return runHolding(e, h, child, f)
}

// connect waits for the client's first session, within --timeout if
// given, and returns what is left of --timeout (negative: none).
func (a acquireFlags) connect(ctx context.Context, e *env, conn *connFlags, client *framework.Client) (time.Duration, error) {
	start := time.Now()
	timeout := time.Duration(-1) // none
	if a.hasTimeout {
		timeout = a.timeout
	}
	if err := conn.waitConnected(ctx, e, client, timeout); err != nil {
		return 0, interrupted(ctx, err)
	}
	if timeout > 0 {
		timeout = max(0, timeout-time.Since(start))
	}
	return timeout, nil
}

// waitFor connects the client and runs acquire until it returns or zkr is
// interrupted. A signal that arrives as acquire succeeds still interrupts:
// the hold is given back with release, and COMMAND never starts.
func waitFor[T any](ctx context.Context, e *env, conn *connFlags, client *framework.Client, a acquireFlags,
	what string, acquire func(ctx context.Context, timeout time.Duration) (T, error), release func(context.Context, T) error) (T, error) {
	var zero T
	ctx, stop := cancelOnSignal(ctx, e)
	defer stop()
	timeout, err := a.connect(ctx, e, conn, client)
	if err != nil {
		return zero, err
	}
	got, err := acquire(ctx, timeout)
	if errors.Is(err, zkrecipes.ErrNotAcquired) {
		return zero, fmt.Errorf("%s: %w within %v: held by others", what, zkrecipes.ErrNotAcquired, a.timeout)
	}
	if err != nil && unreachable(ctx, err) {
		return zero, unreachableErr{err}
	}
	if err != nil {
		return zero, interrupted(ctx, err)
	}
	// After stop, a signal stays in e.signals for runHolding to pass on;
	// before it, the listener took it and only the cause tells.
	stop()
	if cause := context.Cause(ctx); errors.Is(cause, errInterrupted) {
		rctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
		defer cancel()
		if rerr := release(rctx, got); rerr != nil {
			fmt.Fprintf(e.stderr, "zkr: release %s: %s (the node goes with the session)\n", what, oneLine(rerr))
		}
		return zero, cause
	}
	return got, nil
}

// releaseHold releases a lock hold, for waitFor.
func releaseHold[H interface{ Release(context.Context) error }](ctx context.Context, h H) error {
	return h.Release(ctx)
}

// unreachable tells whether acquire failed because the servers went away
// while zkr waited: the session was lost, the client gave up on them, or
// the connection went as the lock or leadership was granted (ErrLost from
// an acquire). A signal is an interruption, not this.
func unreachable(ctx context.Context, err error) bool {
	if errors.Is(context.Cause(ctx), errInterrupted) {
		return false
	}
	return errors.Is(err, zkrecipes.ErrSessionChanged) || errors.Is(err, zkrecipes.ErrLost) ||
		errors.Is(err, zkrecipes.ErrUnreachable) || errors.Is(err, framework.ErrNotConnected) ||
		errors.Is(err, zk.ErrNoServer) || errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrSessionExpired)
}
