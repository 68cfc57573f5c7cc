// Package atomicvalue is Apache Curator's distributed atomic values: a
// number or bytes held in one ZooKeeper node and updated atomically, so
// that Go and Java processes using Curator 5.x on the same path update one
// value together. Long is Curator's DistributedAtomicLong (the node holds
// 8 bytes, big-endian, as Java's ByteBuffer.putLong writes them), Int its
// DistributedAtomicInteger (4 bytes, putInt), Bytes its
// DistributedAtomicValue (any bytes), and CachedLong its CachedAtomicLong
// (numbers handed out from chunks).
//
// The package is not named atomic so as not to shadow sync/atomic, which
// the same programs often import.
//
// An update (Add, Increment, TrySet, ...) reads the node and writes the new
// value conditionally on the version it read (a missing node counts as 0,
// or nil, and is created with container parents); when another writer
// came first it reads and tries again, as the retry policy allows
// (WithRetryPolicy). If no try succeeded and a lock was given
// (WithPromotedToLock), it takes that mutex (package mutex, Curator's
// InterProcessMutex) and tries again while holding it. Each operation
// answers a Result, as Curator's AtomicValue: whether it succeeded, the
// values before and after, and the counts of tries. An update that did not
// succeed is no error: check Result.Succeeded.
//
// Guarantees:
//
//   - Atomic: an update that succeeded wrote its value over exactly the
//     value it read; of several updaters racing from one value, Go or
//     Java, one succeeds, so no update is lost.
//   - Lost answers: an update whose write's answer was lost is never
//     applied twice and never reported as not succeeded after it ran: it is
//     reported succeeded, or its error wraps ErrOutcomeUnknown when the
//     client cannot tell. ZooKeeper cannot say who made a version, so a
//     value that changed by as much as the lost write would have changed
//     it proves nothing. The caller that must count each update once stops
//     there, rather than trying again.
//   - Bad input: a node whose data is not the value's format (8 bytes for a
//     Long, 4 for an Int; empty data reads as 0, as Curator reads it) is
//     ErrMalformedValue, and a result out of the type's range ErrOverflow,
//     where Curator would wrap around; nothing is written then. A bad path,
//     option or chunk size is ErrInvalidArgument, before any I/O.
//   - Get, CompareAndSet and Initialize make one try each; CompareAndSet,
//     as Curator's, counts none in Stats.
//
// Not guaranteed: an update may not succeed at all under heavy contention
// (Curator's none but get are guaranteed to succeed); the lock bounds the
// contention only among updaters that promote. A value read is as fresh
// as the server the client is connected to.
//
// Cost: an uncontended update is two requests, a read and a conditional
// write; each try beaten by another writer costs two more. A promoted
// update adds the mutex's acquire and release.
//
// Errors: the sentinels every recipe shares live in the root package
// zkrecipes; this package re-exports those it returns under the same names
// (errors.go), so errors.Is works across the recipes.
package atomicvalue
