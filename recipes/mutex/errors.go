package mutex

import "errors"

// Sentinel errors. The same names are used by every recipe of the library.
var (
	// ErrNotOwner is returned by a release from anyone but the owner of a
	// hold, or with nothing held.
	ErrNotOwner = errors.New("mutex: not the owner of a hold")
	// ErrNotAcquired is returned by a timed or one-shot acquire that did not
	// get the lock. It is not a failure: nothing is held and nothing is left
	// behind.
	ErrNotAcquired = errors.New("mutex: not acquired")
	// ErrLost says that a hold has ended without a release: the connection
	// was suspended (standard error policy), the session was lost, or the
	// lock node was deleted by someone else. A waiter whose session is lost
	// fails with it too.
	ErrLost = errors.New("mutex: lock lost")
	// ErrNodeMissing is returned by a Driver when the caller's own node is
	// not among the children.
	ErrNodeMissing = errors.New("mutex: own lock node is missing")
	// ErrInvalidArgument is returned for a nil client, a bad path or a bad
	// option, before anything is sent to the server.
	ErrInvalidArgument = errors.New("mutex: invalid argument")
)
