package framework

import (
	"context"
	"fmt"
	"time"
)

// Observer receives what a client and the recipes on it do: the client's
// requests, retries and connection states, and the recipes' acquires,
// holds and terms of leadership. It is the seam for metrics and traces, as
// Curator's TracerDriver and AdvancedTracerDriver are; the module
// github.com/zkrecipes/zkrecipes/observe/otelzk implements it for
// OpenTelemetry. Give one with WithObserver; without one, reporting costs
// a nil check and nothing else.
//
// Every method takes one event struct, so that an event can grow fields
// without breaking implementations; embed NoopObserver so that methods
// added later do not break them either. Methods are called on the
// goroutine of whatever is reported (an acquiring caller, a releasing one,
// the goroutine that signals a loss), possibly many at once: they must be
// safe for concurrent use, return quickly and never block. They may call
// the client. OnState is called from a goroutine of its own, in the order
// of the changes, as a Listener is.
type Observer interface {
	// OnRequest reports one try of a server call.
	OnRequest(RequestEvent)
	// OnRetry reports that a failed try of a call is followed by another.
	OnRetry(RetryEvent)
	// OnState reports a change of the connection state.
	OnState(StateEvent)
	// OnAcquire reports an acquire's start and its end (granted or failed).
	OnAcquire(AcquireEvent)
	// OnHoldStart reports the start of a hold: a lock hold, a lease or a
	// leader's node, handed out. Each is followed by one OnHoldEnd for
	// the same node, so that starts less ends is what is held now.
	OnHoldStart(HoldEvent)
	// OnHoldEnd reports the end of a hold: released or lost, and why.
	OnHoldEnd(HoldEvent)
	// OnTerm reports the start and the end of a term of leadership.
	OnTerm(TermEvent)
}

// NoopObserver is an Observer that does nothing. Embed it in an
// Observer of your own and implement only the methods you need.
type NoopObserver struct{}

// OnRequest does nothing.
func (NoopObserver) OnRequest(RequestEvent) {}

// OnRetry does nothing.
func (NoopObserver) OnRetry(RetryEvent) {}

// OnState does nothing.
func (NoopObserver) OnState(StateEvent) {}

// OnAcquire does nothing.
func (NoopObserver) OnAcquire(AcquireEvent) {}

// OnHoldStart does nothing.
func (NoopObserver) OnHoldStart(HoldEvent) {}

// OnHoldEnd does nothing.
func (NoopObserver) OnHoldEnd(HoldEvent) {}

// OnTerm does nothing.
func (NoopObserver) OnTerm(TermEvent) {}

// RequestEvent is one try of a server call (a read, a write, a
// transaction), retried or not.
type RequestEvent struct {
	// Op names the call, in one word, lower case with underscores (a
	// metric's label carries it as it is): "get", "set", "create",
	// "delete", "exists", "children", "sync", "ensure", "multi",
	// "multi_read", "watch", "remove_watch", "changed_since",
	// "find_and_delete".
	Op string
	// Path is the call's path, relative to the namespace; "" for a
	// transaction.
	Path string
	// Duration is the try's time, from its start to its answer; it
	// includes a wait for the connection (bounded by the connection
	// timeout) when there was none.
	Duration time.Duration
	// Err is the try's error, nil on success. A node that does not exist
	// is an error here too (zk.ErrNoNode), as the server says.
	Err error
}

// RetryEvent is a failed try of a call that the retry policy lets another
// follow, reported after the policy's sleep, before the next try.
type RetryEvent struct {
	// Op and Path are the call's, as in RequestEvent.
	Op, Path string
	// Attempt counts the retries of this call, from 1.
	Attempt int
	// Err is the retryable error of the failed try.
	Err error
}

// StateEvent is a change of the connection state, with the session
// lease's margin at that moment.
type StateEvent struct {
	// Client is the client whose state changed, for an observer shared by
	// several clients.
	Client *Client
	// Change is the transition, as listeners get it.
	Change StateChange
	// Session is the client's session once the change is delivered, nil
	// while it has none (after Lost); an observer may read its
	// LeaseDeadline later, for a gauge.
	Session *Session
	// LeaseMargin is how long the session's lease had to run when the
	// change was delivered (negative: run out), and Leased whether the
	// client keeps a lease at all (not without a session).
	LeaseMargin time.Duration
	Leased      bool
}

// AcquirePhase is the point of an acquire an AcquireEvent reports.
type AcquirePhase int

// The phases of an acquire.
const (
	// AcquireStarted: the acquire goes to the server. A reentrant acquire,
	// which does not, reports nothing.
	AcquireStarted AcquirePhase = iota + 1
	// AcquireGranted: the acquire got its hold.
	AcquireGranted
	// AcquireFailed: the acquire ended without a hold; Err says why (it
	// wraps the library's ErrNotAcquired when the caller stopped waiting
	// while others held what it wanted).
	AcquireFailed
)

// String returns the phase's name.
func (p AcquirePhase) String() string {
	switch p {
	case AcquireStarted:
		return "started"
	case AcquireGranted:
		return "granted"
	case AcquireFailed:
		return "failed"
	}
	return "AcquirePhase(?)"
}

// AcquireEvent is the start or the end of one acquire of a recipe.
type AcquireEvent struct {
	// Context is the acquirer's context, for an observer that starts a
	// span under the caller's.
	Context context.Context
	// Recipe names the recipe: "mutex", "rwlock.read", "rwlock.write",
	// "semaphore", "leader.latch", "leader.selector". A lock that is a
	// part of another recipe's acquire (the semaphore's guard) reports
	// nothing of its own: the recipe's acquire covers it.
	Recipe string
	// Path is the recipe's path.
	Path  string
	Phase AcquirePhase
	// Start is when the acquire started (the same in all its events).
	Start time.Time
	// Wait is the time from Start to this event; 0 for AcquireStarted.
	Wait time.Duration
	// Err is why an acquire failed; nil otherwise.
	Err error
}

// Cause says why a hold or a term ended.
type Cause string

// The causes of a hold's or a term's end.
const (
	// CauseReleased: the holder released it (returned a lease; a
	// selector's function returned).
	CauseReleased Cause = "released"
	// CauseResigned: a leader gave its term up (Resign).
	CauseResigned Cause = "resigned"
	// CauseCanceled: the participant's context ended.
	CauseCanceled Cause = "canceled"
	// CauseClosed: the client or the participant was closed.
	CauseClosed Cause = "closed"
	// CauseSuspended: lost, as the connection was suspended (the
	// standard error policy).
	CauseSuspended Cause = "suspended"
	// CauseLeaseLapsed: lost, as the session's lease ran out without an
	// answer from the server.
	CauseLeaseLapsed Cause = "lease_lapsed"
	// CauseSessionLost: lost with its session.
	CauseSessionLost Cause = "session_lost"
	// CauseDeleted: lost, as someone else deleted its node.
	CauseDeleted Cause = "deleted"
	// CauseExpired: lost, as its maximum hold time passed without
	// renewal.
	CauseExpired Cause = "expired"
)

// IsLoss reports whether the cause is a loss: an end that the holder did
// not choose (closing the client is a choice).
func (c Cause) IsLoss() bool {
	switch c {
	case CauseSuspended, CauseLeaseLapsed, CauseSessionLost, CauseDeleted, CauseExpired:
		return true
	}
	return false
}

// HoldEvent is the start or the end of one hold: a lock hold or a lease.
type HoldEvent struct {
	// Recipe names the recipe, as in AcquireEvent; "lease" for a lease
	// not issued by a recipe that names it.
	Recipe string
	// Path is the directory of the hold's node (a semaphore's leases
	// directory), Node the node.
	Path, Node string
	// Held is the time from the hold's start to its end; 0 at its start.
	Held time.Duration
	// Cause says why it ended; Err is the loss's error (nil for a
	// release). Both are zero at its start.
	Cause Cause
	Err   error
}

// TermPhase is the point of a term of leadership a TermEvent reports.
type TermPhase int

// The phases of a term.
const (
	// TermStarted: the participant leads.
	TermStarted TermPhase = iota + 1
	// TermEnded: it no longer does.
	TermEnded
)

// String returns the phase's name.
func (p TermPhase) String() string {
	switch p {
	case TermStarted:
		return "started"
	case TermEnded:
		return "ended"
	}
	return "TermPhase(?)"
}

// TermEvent is the start or the end of a term of leadership.
type TermEvent struct {
	// Recipe is "leader".
	Recipe string
	// Path is the election's path, Node the participant's node.
	Path, Node string
	// Participant is the participant's id.
	Participant string
	Phase       TermPhase
	// Duration is the term's length, for TermEnded.
	Duration time.Duration
	// Cause says why the term ended; Err is its error. Both are zero for
	// TermStarted.
	Cause Cause
	Err   error
}

// WithObserver reports the client's requests, retries and states, and
// the acquires, holds and terms of every recipe on the client, to o.
// Default: none, and reporting costs a nil check.
func WithObserver(o Observer) Option {
	return func(c *config) error {
		if o == nil {
			return fmt.Errorf("%w: nil observer", ErrInvalidOption)
		}
		c.observer = o
		return nil
	}
}

// Observer returns the client's observer (WithObserver), or nil when it
// has none: a recipe reports only after checking for nil, so that a client
// without one pays nothing else.
func (h Hooks) Observer() Observer { return h.c.cfg.observer }

// observeStates delivers every state change to the observer, on a
// listener's goroutine.
func (c *Client) observeStates(o Observer) {
	c.listeners.add(func(change StateChange) {
		ev := StateEvent{Client: c, Change: change, Session: c.Session()}
		if ev.Session != nil {
			if d, ok := ev.Session.LeaseDeadline(); ok {
				ev.LeaseMargin, ev.Leased = time.Until(d), true
			}
		}
		o.OnState(ev)
	})
}

// observeTry reports one try of a call that started at start.
func (c *Client) observeTry(op, path string, start time.Time, err error) {
	c.cfg.observer.OnRequest(RequestEvent{Op: op, Path: path, Duration: time.Since(start), Err: err})
}
