package multilock

import "github.com/zkrecipes/zkrecipes"

// Sentinel errors: those every recipe shares are the zkrecipes package's,
// under the same names, so errors.Is works across the recipes. A part's
// own error (mutex.ErrNotAcquired, leases.ErrLost, ...) is the same value.
var (
	// ErrNotAcquired is returned by a timed or one-shot acquire that saw a
	// part held by others when its time ran out. Nothing is held and
	// nothing is left behind.
	ErrNotAcquired = zkrecipes.ErrNotAcquired
	// ErrUnreachable is returned by a timed acquire whose time ran out while
	// the server could not be reached.
	ErrUnreachable = zkrecipes.ErrUnreachable
	// ErrNotOwner is returned by an acquire or release that a part refuses
	// to its caller.
	ErrNotOwner = zkrecipes.ErrNotOwner
	// ErrReleased is returned by a second release of a Hold.
	ErrReleased = zkrecipes.ErrReleased
	// ErrLost says that a part's hold ended without a release: the
	// connection was suspended (standard error policy), the session was
	// lost, or the part's node was deleted by someone else.
	ErrLost = zkrecipes.ErrLost
	// ErrInvalidArgument is returned for no parts, a nil part, two parts on
	// one path, or a bad owner, before anything is sent to the server.
	ErrInvalidArgument = zkrecipes.ErrInvalidArgument
	// ErrClosed is wrapped by the error of a call made on a closed client,
	// or waiting when the client was closed.
	ErrClosed = zkrecipes.ErrClosed
)
