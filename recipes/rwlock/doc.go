// Package rwlock is an inter-process read/write lock on ZooKeeper,
// compatible with Apache Curator's InterProcessReadWriteLock: Go and Java
// processes on the same path share the read lock and exclude each other
// from the write lock.
//
// Readers and writers queue in one directory, as protected
// ephemeral-sequential nodes path/_c_<uuid>-__READ__<sequence> and
// path/_c_<uuid>-__WRIT__<sequence> under a container parent, ordered by
// sequence (Curator strips both names to sort). Both locks run on the lock
// engine of package mutex, each with a Driver of its own.
//
// Guarantees:
//
//   - Exclusion: a writer holds alone; readers hold together.
//   - Strict arrival order: a reader waits for every writer queued before
//     it, so a stream of readers never starves a writer; a writer waits
//     for every node before it. Waiters only ever wait on nodes in front
//     of them, so no wait cycle can form (Kazoo 2.8's issue 649 cannot
//     happen here).
//   - Hand-off: a reader with at most two writers in front, or a writer
//     with at most two readers in front, holds the moment the last of them
//     is deleted, without another request; the readers released together
//     by one writer's release all take the lock on that one deletion. A
//     writer behind a writer looks at the queue once more when that writer
//     goes (one request), since a writer may downgrade and leave its read
//     node at its place. Deeper waiters watch the two nearest nodes in
//     their way and look again before their turn.
//   - Ownership and reentrancy: as mutex.Mutex, per owner, the calling
//     goroutine unless the context names one (ContextWithOwner); each lock
//     counts its own re-entries, with no server call. A reader that holds
//     the read lock re-enters it even while a writer is queued. An owner's
//     acquires and releases take turns (an explicit owner may call from
//     several goroutines): a write acquire beside the same owner's read
//     acquire waits for it and is then refused as an upgrade, a read
//     acquire beside its write acquire waits for it and downgrades, so an
//     owner never queues behind itself; and a release of the write lock
//     beside a read acquire either follows the downgrade or precedes it,
//     and the read acquire then queues. A release waits for its turn at
//     most 5 s, then goes on. TryAcquire does not wait its turn.
//   - Downgrade: the write holder may take the read lock of the same
//     ReadWriteLock, then release the write lock. Its read node is a plain
//     ephemeral node at the writer's place,
//     _c_<uuid>-__READ__<writer's sequence> (Curator 5.5's fix of
//     CURATOR-621), so a writer queued behind stays out until the read
//     lock is released too. The read node is created in one transaction
//     with a check that the write node still exists: if it is gone
//     (deleted by an operator or a tool, or its session lost), someone
//     queued behind may hold already, and the downgrade fails with an
//     error wrapping ErrLost instead of taking the place; so does a
//     downgrade from a write hold known to be lost. Release the lost write
//     hold, then acquire anew. Equal sort keys keep the order in which the
//     server lists the children, as Curator's stable sort does, so both
//     show the same queue.
//   - No upgrade: an owner holding the read lock but not the write lock
//     gets ErrUpgrade at once when it asks for the write lock, and nothing
//     is sent to the server. Curator and Kazoo wait on themselves forever.
//     If that read hold is lost, the error wraps ErrLost instead: release
//     the lost hold, then take the write lock.
//   - Nothing left behind, loss signalled, fencing, guarded writes: as
//     mutex.Mutex. A hold is a mutex.Hold, with Lost, Err, Path,
//     FencingToken and Guard (a write that the server applies only while
//     the hold holds).
//
// Cost: a free lock, of either kind, is taken in one round trip and
// released in one, three requests in all (create, the listing that rides
// along with it, delete). A waiter sets its watches in one more round trip.
// A downgrade is one transaction (the check and the create).
//
// Not guaranteed: holding is never certain until release (see package
// mutex). Curator 5.4 (Debian's) does not keep a downgraded reader's place:
// a Curator 5.4 process that downgrades can let a writer in while its read
// lock is held; that is Curator's bug, fixed in 5.5.
//
// Errors: the sentinels that every recipe shares live in the root package
// zkrecipes; this package re-exports those it returns under the same names
// (errors.go), so errors.Is works across the recipes.
package rwlock
