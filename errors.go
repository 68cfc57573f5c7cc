package zkrecipes

import "errors"

// The sentinel errors every recipe shares. Each recipe package re-exports
// them under the same names (mutex.ErrNotAcquired is ErrNotAcquired), so
// errors.Is works across recipes; the wrapping message names the recipe and
// the path.
var (
	// ErrNotAcquired is returned by a timed or one-shot acquire that saw the
	// lock (or enough leases) held by others for the whole wait. It is not a
	// failure: nothing is held and nothing is left behind. A wait that could
	// not reach the server returns ErrUnreachable instead.
	ErrNotAcquired = errors.New("zkrecipes: not acquired")
	// ErrUnreachable is returned by a timed acquire whose time ran out while
	// the client could not reach the server, for all or the end of the wait,
	// or before the server's answer came: nobody can say whether the lock
	// was free. The error also wraps the connection's last failure, or, when
	// the connection stood and the deadline was shorter than the answer,
	// says so in words rather than "server unreachable". framework.Connect returns it too, when no
	// session was made before its deadline.
	ErrUnreachable = errors.New("zkrecipes: server unreachable")
	// ErrNotOwner is returned by a release from anyone but the owner of a
	// hold, or with nothing held, and by a release of a lease that another
	// recipe issued.
	ErrNotOwner = errors.New("zkrecipes: not the owner")
	// ErrReleased is returned by a second release of a hold that had
	// already been released, and wrapped by the error of a released lease.
	ErrReleased = errors.New("zkrecipes: already released")
	// ErrLost says that a hold or lease ended without a release: the
	// connection was suspended (standard error policy), the session was
	// lost, the node was deleted by someone else, or a time bound passed. A
	// waiter whose session is lost fails with it too.
	ErrLost = errors.New("zkrecipes: lost")
	// ErrExpired is wrapped, together with ErrLost, by the error of a hold
	// or lease whose bound (a maximum hold time, or the time to live of a
	// TTL lease) passed without a renewal, on the holder's own clock: the
	// holder's process gave it up itself.
	ErrExpired = errors.New("zkrecipes: bound passed without renewal")
	// ErrInvalidArgument is returned for a nil client, a bad path, count,
	// duration, owner or option, before anything is sent to the server.
	ErrInvalidArgument = errors.New("zkrecipes: invalid argument")
	// ErrSessionChanged is returned by a call bound to a session when the
	// client is now in another one: ephemeral nodes of the old session are
	// gone, and nothing the call created in the new session is kept.
	ErrSessionChanged = errors.New("zkrecipes: session changed")
	// ErrOutcomeUnknown is returned by a conditional write (a versioned set
	// or delete, a transaction) whose answer was lost, when the client
	// cannot prove whether the server applied it: ZooKeeper has no request
	// ids by which a retry could be told from the lost try. The write ran
	// once or not at all, never twice; read to learn which. The error also
	// wraps the cause (the connection's failure, or the end of the ctx).
	ErrOutcomeUnknown = errors.New("zkrecipes: outcome of the write unknown")
	// ErrNodeMissing is wrapped by the error of a wait whose own node (a
	// lock's, a lease's) vanished while it waited: deleted by someone else.
	// A recipe queues again when it sees it, as often as the client's
	// retry policy allows, and then fails with it.
	ErrNodeMissing = errors.New("zkrecipes: own node is missing")
	// ErrStarted is returned by a second Start of a recipe that runs in
	// the background (a leader latch or selector, a cache).
	ErrStarted = errors.New("zkrecipes: started already")
	// ErrClosed is returned by every call on a client after its Close
	// (framework.ErrClosed is this value), by a call on a recipe after
	// the recipe's Close, and wrapped by the error of a recipe whose
	// client was closed under it; zktesting's servers return it too after
	// their Close. Each package re-exports it, so errors.Is matches any of
	// them.
	ErrClosed = errors.New("zkrecipes: closed")
)
