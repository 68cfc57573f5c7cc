// Package mutex is an inter-process mutex on ZooKeeper, compatible with
// Apache Curator's InterProcessMutex: a Go process and a Java process using
// Curator 5.x on the same path exclude each other and see each other's
// nodes.
//
// Each acquirer queues a protected ephemeral-sequential node,
// path/_c_<uuid>-lock-<sequence>, and holds the lock while its node is the
// first in sequence order. A waiter watches the two nodes in front of it
// and its own, so a release wakes at most two waiters, whatever the length
// of the queue. The second and third in line watch every node in front of
// them and hold the lock as soon as the last of those is deleted, without
// reading the directory again; a waiter further back reads it again when
// the farther of its two goes, while the nearer one holds, so that its own
// hand-off needs no read either.
//
// On ZooKeeper 3.6 and later, a waiter behind a short queue (at most 8
// nodes) waits instead through one persistent recursive watch of the
// directory that every Mutex of the client on that path shares between
// its waiters and holds: it keeps
// the listing it got with its create up to date from the watch's events
// and holds as soon as the queue in front of it is gone, with no read at
// all; a hold learns of its node's deletion through the same watch. While
// the watch lasts, the Mutex keeps the queue as its events tell it, so a
// client that queues again, the common loop, creates its node without
// listing the directory: a contended acquisition costs the create and the
// delete alone. That watch tells every waiting client of every change, so
// behind a longer queue the one-shot watches above cost the server less,
// and a waiter that finds the queue long ends the client's watch, and
// the server's, at once if no other waiter or hold of the client has it.
// Otherwise the watch is removed two seconds after its last waiter or
// hold is done.
//
// The queue logic is a pure judgement over the children, which lives with
// the other names only recipe authors need in package lockdriver
// (Curator's LockInternalsDriver); NewWithDriver, with WithName, WithKind,
// WithPlace and WithTurn, builds other locks on this mutex's engine (the
// read/write lock, the leader election), whose holds are then this
// package's Hold.
// A user of the mutex needs none of them.
//
// Guarantees:
//
//   - Ownership: a hold belongs to an owner, the calling goroutine unless
//     the context names one (ContextWithOwner). The same owner acquiring again
//     counts up without a server call, and concurrent acquires by one
//     owner share one hold; goroutines sharing a Mutex exclude each other.
//     Only the owner can release (ErrNotOwner otherwise; ErrReleased for a
//     Hold released already). Owners that could not exclude each other are
//     refused (see ContextWithOwner).
//   - Nothing left behind: an acquire that times out, is cancelled, or
//     fails deletes its node, under a context of its own; a node whose
//     delete fails is deleted in the background once connected.
//   - Loss is signalled: every Hold has a Lost channel and an Err. Under
//     the default framework.StandardErrorPolicy, a suspended connection
//     already ends the hold, before the server can expire the session and
//     let another process in; the node is then deleted once connected.
//     Under either policy the hold ends at the latest when its session's
//     lease runs out (see package framework), so no two holders overlap
//     without one of them having been told first, also when the holder's
//     requests no longer reach the server but its notifications still
//     arrive. An operator deleting the node ends the hold too. A waiter whose
//     session is lost fails at once with ErrLost.
//   - A node of a lost session is never taken as held: every look at the
//     queue is bound to the session that created the node (Curator's
//     CURATOR-604 cannot happen).
//   - Timeouts: AcquireTimeout returns ErrNotAcquired only when the lock
//     was seen held by others at the end of the wait, while connected;
//     when the server could not be reached, or did not answer in time, it
//     returns ErrUnreachable, wrapping the connection's last failure. A
//     zero timeout is one attempt, as TryAcquire.
//   - Fencing: Hold.FencingToken is the node's creation zxid, which grows
//     from one holder to the next.
//   - Guarded writes: Hold.Guard is an operation for
//     framework.Client.Multi that fails the transaction, with ErrLost,
//     unless the hold's node is still there, so the server applies a write
//     in the same transaction only while the lock is held. A guarded
//     transaction whose answer was lost is never applied twice nor
//     reported failed after it ran (framework.ErrOutcomeUnknown when the
//     client cannot prove whether it ran).
//
// Cost: a free lock is taken in one round trip and released in one, three
// requests in all: the listing of the queue leaves right behind the create
// (framework.Hooks.CreateProtectedAndList). A waiter sets its watches
// together, in one more round trip. A contended acquisition costs two
// requests through the directory watch when the client queues again
// while it has the watch (create, delete), three when it must list,
// seven with one-shot watches.
//
// Not guaranteed: holding is never certain until release; a process paused
// for longer than the session timeout may still believe it holds the lock.
// Use a guarded write or the fencing token where that matters. Revocation (WithRevocation,
// Revoke) is cooperative.
//
// Errors: the sentinels that every recipe shares live in the root package
// zkrecipes; this package re-exports those it returns under the same names
// (errors.go), so errors.Is works across the recipes.
package mutex
