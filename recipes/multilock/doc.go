// Package multilock takes several locks all or none, compatible with
// Apache Curator's InterProcessMultiLock: a Go process and a Java process
// taking a multi-lock (or any of its locks alone) on the same paths exclude
// each other.
//
// A Lock is made of parts: mutexes (Mutex), the read or the write lock of
// a read/write lock (Read, Write) and semaphore mutexes (SemaphoreMutex),
// each on a path of its own. Acquire takes them one after the other, in
// the order given, each with its own protocol and nodes; when one cannot
// be taken (a timeout, the end of ctx, an error), the parts taken so far
// are released in reverse order before Acquire returns. Release gives them
// up in reverse order too. There is nothing on the server that belongs to
// the multi-lock as a whole.
//
// Deadlock: two processes that take the same locks in different orders can
// each hold one that the other waits for, and wait for ever (a timed
// acquire then runs out on both sides). Every process must name the same
// locks in the same order; NewSorted orders them by path, which does that
// for everyone who uses it. Curator processes take the locks in the order
// their InterProcessMultiLock lists them: give them the sorted order too.
//
// Guarantees:
//
//   - All or none: a Hold is returned only with every part held; an
//     acquire that fails, times out or is cancelled releases the parts it
//     took, in reverse, and leaves no node behind (each part deletes its own
//     waiting node, as its recipe promises). A part whose loss is known by
//     the time the last part is taken (its connection or session, as its
//     error policy says) fails the acquire with its error; an earlier
//     part's node deleted by someone else meanwhile shows in Hold.Lost,
//     which watches the nodes.
//   - Ownership and reentrancy are the parts': a mutex, read or write part
//     belongs to the owner in ctx (mutex.ContextWithOwner) or to the calling
//     goroutine, and the same owner acquiring again counts up on it, even
//     from two goroutines at once; a semaphore mutex part is not reentrant.
//     Each acquire returns a Hold of its own, released once (ErrReleased
//     after that), by any goroutine.
//   - Timeouts: AcquireTimeout bounds the whole acquire; it returns
//     ErrNotAcquired only when a part was seen held by others as the time
//     ran out, and ErrUnreachable when the server could not be reached. A
//     zero timeout, or TryAcquire, is one attempt on each part. Bad
//     arguments (no parts, a nil part, two parts on one path, a bad owner)
//     give ErrInvalidArgument before anything is sent.
//   - Loss is signalled: Hold.Lost is closed when any part's hold is lost
//     (see each part's recipe for what loss means under its error policy),
//     and Hold.Err names the part.
//   - Fencing: Hold.FencingTokens gives one token per part, in order; each
//     grows from one holder of its lock to the next.
//   - Guarded writes: Hold.Guards gives one guard per part, all to go in
//     the same framework.Client.Multi, so a transaction is applied only
//     while every part is still held as handed out, checked by the server;
//     otherwise it fails with ErrLost, naming the lost part.
//
// Cost: the sum of the parts' costs, one part after the other: an
// uncontended acquire and release of n mutex parts take 3n requests in 2n
// round trips. Nothing is sent for the multi-lock itself; Lost adds one
// request per part that was not waited for, and one goroutine per Hold,
// both at its first call only.
//
// Not guaranteed: the parts are not taken atomically. While the multi-lock
// waits for a later part, it holds the earlier ones, so others wait for
// those meanwhile; and holding is never certain until release, as with any
// one lock: use the guards or the fencing tokens where that matters.
package multilock
