package semaphore

import (
	"errors"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

// Sentinel errors. All but ErrInvalidMaximum are the zkrecipes and
// sharedcount packages under the same names, so errors.Is works across the
// recipes.
var (
	// ErrNotAcquired is returned by a timed acquire whose time ran out. It
	// is not a failure: nothing is held and no lease node is left behind.
	ErrNotAcquired = zkrecipes.ErrNotAcquired
	// ErrNotOwner is returned when releasing a lease that another semaphore
	// issued, or releasing a Mutex that holds nothing.
	ErrNotOwner = zkrecipes.ErrNotOwner
	// ErrUnreachable is returned by a timed acquire whose time ran out while
	// the server could not be reached.
	ErrUnreachable = zkrecipes.ErrUnreachable
	// ErrLost is wrapped by the error of an acquire whose session was lost
	// while it waited, and by a lease's error after a loss.
	ErrLost = zkrecipes.ErrLost
	// ErrInvalidArgument is returned for a nil client or count, a bad path,
	// a maximum below 1, a lease count below 1 or above a fixed maximum, or
	// a bad option, before anything is sent to the server.
	ErrInvalidArgument = zkrecipes.ErrInvalidArgument
	// ErrClosed is wrapped by the error of a call made on a closed client,
	// or waiting when the client was closed.
	ErrClosed = zkrecipes.ErrClosed
	// ErrNodeMissing is wrapped by the error of an acquire one of whose own
	// lease nodes vanished while it counted (the acquire creates it again,
	// as Curator does, until its ctx ends; the error then wraps the ctx's
	// too).
	ErrNodeMissing = zkrecipes.ErrNodeMissing
	// ErrMalformedCount is wrapped by the error of a counted acquire whose
	// count node does not hold a 4-byte count.
	ErrMalformedCount = sharedcount.ErrMalformedCount
	// ErrInvalidMaximum is wrapped by the error of a counted acquire whose
	// shared count is negative, which no maximum can be.
	ErrInvalidMaximum = errors.New("semaphore: shared count is negative, not a maximum")
)
