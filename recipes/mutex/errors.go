package mutex

import (
	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/recipes/mutex/lockdriver"
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
	// lock held by others for the whole wait. It is not a failure: nothing
	// is held and nothing is left behind.
	ErrNotAcquired = zkrecipes.ErrNotAcquired
	// ErrUnreachable is returned by a timed acquire whose time ran out while
	// the server could not be reached.
	ErrUnreachable = zkrecipes.ErrUnreachable
	// ErrLost says that a hold has ended without a release: the connection
	// was suspended (standard error policy), the session was lost, or the
	// lock node was deleted by someone else. A waiter whose session is lost
	// fails with it too.
	ErrLost = zkrecipes.ErrLost
	// ErrExpired is wrapped, together with ErrLost, by the error of a hold
	// whose maximum hold time (WithMaxHold) passed without a renewal.
	ErrExpired = zkrecipes.ErrExpired
	// ErrInvalidArgument is returned for a nil client, a bad path, owner or
	// option, before anything is sent to the server.
	ErrInvalidArgument = zkrecipes.ErrInvalidArgument
	// ErrClosed is wrapped by the error of a call made on a closed client,
	// or waiting when the client was closed.
	ErrClosed = zkrecipes.ErrClosed
	// ErrNodeMissing is wrapped by the error of an acquire whose lock node
	// was deleted while it waited, once the client's retry policy allows
	// no more queueing again (lockdriver.ErrNodeMissing).
	ErrNodeMissing = lockdriver.ErrNodeMissing
)
