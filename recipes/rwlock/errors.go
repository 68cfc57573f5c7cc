package rwlock

import (
	"errors"

	"github.com/zkrecipes/zkrecipes"
)

// Sentinel errors: those every recipe shares are the zkrecipes package's,
// under the same names, so errors.Is works across the recipes.
var (
	// ErrNotOwner is returned by a release from anyone but the owner of a
	// hold, or with nothing held.
	ErrNotOwner = zkrecipes.ErrNotOwner
	// ErrReleased is returned by a release of a Hold that has been released
	// already.
	ErrReleased = zkrecipes.ErrReleased
	// ErrNotAcquired is returned by a timed or one-shot acquire that saw the
	// lock held by others for the whole wait. Nothing is held and nothing
	// is left behind.
	ErrNotAcquired = zkrecipes.ErrNotAcquired
	// ErrUnreachable is returned by a timed acquire whose time ran out while
	// the server could not be reached.
	ErrUnreachable = zkrecipes.ErrUnreachable
	// ErrLost says that a hold has ended without a release: the connection
	// was suspended (standard error policy), the session was lost, or the
	// lock node was deleted by someone else. A waiter whose session is lost
	// fails with it too.
	ErrLost = zkrecipes.ErrLost
	// ErrInvalidArgument is returned for a nil client, a bad path, owner,
	// timeout or option, before anything is sent to the server.
	ErrInvalidArgument = zkrecipes.ErrInvalidArgument
	// ErrClosed is wrapped by the error of a call made on a closed client,
	// or waiting when the client was closed.
	ErrClosed = zkrecipes.ErrClosed
	// ErrUpgrade is returned at once, with nothing sent to the server, when
	// an owner that holds the read lock (and not the write lock) asks for
	// the write lock. It could never get it: its own read node is in the
	// way. Curator's and Kazoo's readers wait on themselves forever instead.
	// An owner whose read hold is lost gets an error wrapping ErrLost
	// instead.
	ErrUpgrade = errors.New("rwlock: the read lock cannot be upgraded to the write lock")
)
