// Package semaphore is a counting semaphore on ZooKeeper, compatible with
// Apache Curator's InterProcessSemaphoreV2 and InterProcessSemaphoreMutex:
// Go processes and Java processes using Curator 5.x on the same path share
// one set of permits and see each other's leases.
//
// The protocol is Curator's. Under path, a guard mutex at path/locks (lock
// nodes "_c_<uuid>-lock-<sequence>") lets one acquirer at a time create its
// lease node(s), protected ephemeral-sequential "_c_<uuid>-lease-<sequence>"
// under path/leases (both parents are containers), and count the children
// of path/leases: while there are more than the maximum, the guard holder
// waits on a watch of that directory, and the other acquirers wait on the
// guard, so one process at a time watches the directory. Every lease node
// counts, whoever made it. The maximum is fixed (New) or the value of a
// shared count (NewCounted, package sharedcount), whose change wakes the
// waiting acquirer. One addition that Curator does not see: the
// transaction that creates the lease nodes also rewrites the (empty) data
// of path/leases, whose returned stat gives the count with the create.
//
// Guarantees:
//
//   - At most the maximum leases are held at once, by Go and Curator
//     processes together. A lowered maximum takes no lease back: it holds
//     back acquirers until enough leases are released.
//   - All or nothing, atomically: AcquireN creates its n lease nodes in one
//     transaction, so two processes that each want several leases never
//     hold part of them while waiting (Curator takes them one at a time,
//     and two such acquirers can deadlock).
//   - Nothing left behind: an acquire that times out, is cancelled or
//     fails deletes its lease nodes and its guard node, under a context of
//     its own, or in the background once connected (Curator's CURATOR-315,
//     335 and 462 were orphan leases that deadlocked the semaphore). A
//     transaction whose answer was lost, possibly run twice, is recognised
//     by the protection ids of its nodes.
//   - A timed acquire that runs out while it sees the leases held returns
//     ErrNotAcquired; one that runs out while the server cannot be reached,
//     or before its answer, returns ErrUnreachable: an outage never reads
//     as contention. A zero timeout is one attempt. Bad arguments fail with
//     ErrInvalidArgument before anything is sent.
//   - Loss is signalled: each Lease has a Lost channel and an Err (see
//     package leases). An acquirer whose session is lost while it waits
//     fails with ErrLost; its lease nodes died with the session.
//   - Fencing: Lease.FencingToken is the zxid of the read that showed room
//     for the lease: the leases directory's Pzxid (the zxid of its last
//     child created or deleted) in the stat of the transaction that
//     created the lease, or of the listing a waiter made, known at hand-out
//     without a request. It is at least the lease node's creation zxid,
//     and a lease handed out after another ended (released, lost, or taken
//     over with Resume, whose token is the take-over's write) has the
//     greater token: the ended lease's node was deleted before that read.
//     A node's creation zxid would not do: a waiter creates its node first,
//     and a Resume may write the node it waits behind.
//   - Guarded writes: Lease.Guard is an operation for
//     framework.Client.Multi that fails the transaction, with ErrLost,
//     unless the lease's node is still there as its holder left it, so
//     the server applies a write in the same transaction only while the
//     lease is held (see leases.Lease.Guard).
//
// Cost: an uncontended acquire and release take 5 requests: the guard's
// create and list; one transaction that creates the lease node(s) and
// writes the leases directory, whose returned stat counts the leases, so
// that counting needs no list of its own; the guard's delete; and the
// lease's delete. Only a transaction that was sent twice, after a lost
// answer, is counted by a list of the leases directory instead, which
// also deletes the strays of the first run (and the client looks for late
// ones twice more in the background). An acquirer that finds room holds
// the guard for two round trips (Curator's: at least four). Where the ACL
// forbids writing the leases directory, the semaphore counts by listing
// it, as Curator does. A contended acquire waits for the guard as a mutex
// waiter does, but without watching its own node (mutex.WithOrderOnly):
// the count, not the guard, keeps the leases within the maximum. Behind up
// to 16 acquirers (a mutex: 8) it follows the guard's queue through the
// locks directory's watch (ZooKeeper 3.6+): 4 requests per acquisition,
// and about two notifications to each client that waits. Behind a longer
// queue, or on an older server, it waits on one-shot watches: 8 requests,
// of which 3 wait for the guard, and about two notifications in all.
//
// Time-bounded leases: WithMaxHold bounds each lease between renewals,
// enforced by the holder's process; WithTTL makes the lease nodes
// persistent with a time to live, so a lease outlives its holder's session
// and a restarted holder resumes it (Resume), while the server removes a
// lease that is no longer renewed (see package leases). TTL lease nodes
// have Curator's names and count for Curator processes like any lease;
// they are created one by one under the guard and counted by a listing,
// since a TTL create cannot be part of a transaction.
//
// Not guaranteed: fairness beyond the guard's first-come order; holding is
// never certain until the release (see package leases). Mutex is not
// reentrant, unlike package mutex.
//
// Errors: the sentinels that every recipe shares live in the root package
// zkrecipes; this package re-exports those it returns under the same names
// (errors.go), so errors.Is works across the recipes.
package semaphore
