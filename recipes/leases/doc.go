// Package leases is the held permit of a ZooKeeper semaphore: a Lease
// stands for one lease node, an ephemeral node of the holder's session,
// such as the path/leases/_c_<uuid>-lease-<sequence> nodes of Curator's
// InterProcessSemaphoreV2 that package semaphore issues.
//
// Guarantees:
//
//   - Release deletes the lease node once: releasing again, from any
//     goroutine, is harmless and returns nil. A node whose delete fails is
//     deleted in the background once the client is connected again, so a
//     released lease never keeps its permit.
//   - Loss is signalled: Lost is closed when the lease ends without a
//     release. Under the default framework.StandardErrorPolicy a suspended
//     connection already ends the lease, before the server can expire the
//     session and give the permit to someone else; the node is then deleted
//     once connected. Session loss, and the end of the session's lease
//     (see package framework), end it under every policy, and so does
//     someone else deleting the node, which the lease watches from the
//     first call to Lost (one request; a lease that is never asked about
//     loss costs nothing beyond its create and its delete). A TTL lease
//     watches its node from the start (one read when handed out, one after
//     each write to it), since another holder may take it over.
//   - Fencing: FencingToken is the zxid of the read that granted the lease
//     (for a semaphore's lease, the listing of its leases directory that
//     showed room: Grant), or the lease node's creation zxid for a lease
//     nobody granted. A lease handed out after another ended has the
//     greater token, even when its node was created first. A TTL lease
//     taken over (Resume) gets a new token, the zxid of the take-over's
//     write, higher than every earlier holder's; renewals keep a holder's
//     token. A resource that keeps the highest token refuses the earlier
//     holder, which also learns of the take-over at once (ErrTakenOver).
//     At most one Resume of a node wins.
//   - Guarded writes: Lease.Guard is an operation for
//     framework.Client.Multi that fails the transaction, with ErrLost,
//     unless the lease's node is still there as this holder left it (for a
//     TTL lease, at the version of the holder's last write), so the server
//     applies a write in the same transaction only while the lease is
//     held. A guarded transaction whose answer was lost is never applied
//     twice nor reported failed after it ran.
//   - A time-bounded lease (WithMaxHold) lives by its renewals: the holder
//     proves it is alive with Renew (or a Keeper renews while a context of
//     the caller's lives, as Redisson's watchdog does), and when the bound
//     passes without one, the holder's own process deletes the node and
//     signals the lease lost with ErrExpired. The deadline is kept on the
//     holder's monotonic clock; no process ever deletes another's node on a
//     comparison of clocks. A renewal writes the node's Stamp (bound, last
//     renewal) for operators, and never creates a node, so a renewal after
//     a loss or a release fails (ErrLost, ErrReleased) and brings nothing
//     back. A bounded lease that is never renewed ends its bound after its
//     acquire.
//   - A TTL lease (IssueTTL; package semaphore's WithTTL) outlives its
//     holder's session and process: a restarted holder takes it over with
//     Resume. Its node is persistent with a time to live, renewed by a
//     write conditional on the holder's version, so that a holder that was
//     taken over can neither renew nor delete it. The server removes a node
//     that was not renewed within its TTL at its next container check: the
//     permit is free at most TTL plus znode.container.checkIntervalMs (60 s
//     by default) after the last renewal, and the holder's process signals
//     the loss at TTL after the last renewal began, before the server can
//     free it (a new lease's deadline counts from before its create was
//     sent). That holds while the holder's clock and the server leader's
//     wall clock agree: see IssueTTL for the caveat. The server must run with
//     extendedTypesEnabled=true (ErrTTLUnsupported otherwise).
//
// Measured on the test server (1 s container check interval, loaded
// two-core machine): a session lease with a 1 s bound that stops renewing
// is lost, and its permit taken by the next waiter, 1.01 s after its last
// renewal (bound: 1 s); a TTL lease whose holder's process dies is
// reclaimed by the server and taken by the next waiter 6.5 s after its last
// renewal with a 6 s TTL, 8.4 s with an 8 s TTL (bounds: 7 s and 9 s).
//
// Mutex holds (package mutex, WithMaxHold) are Renewers too, but their
// renewal is local: the lock node's data carries revocation requests, so a
// hold never writes it.
//
// Not guaranteed: holding is never certain until the release, since the
// server may have expired the session already. The bound of a session
// lease is enforced by the holder's process, so a process that is stopped
// as a whole (not just a goroutine) keeps the lease until its session
// expires; a TTL lease is bounded by the server instead, whose clock
// (not the holder's) decides when its node is removed. The earlier holder
// of a TTL lease taken over learns of it from a watch: until the
// notification arrives it may still believe it holds, which is what the
// fencing token and the guarded write are for.
//
// Errors: the sentinels that every recipe shares live in the root package
// zkrecipes; this package re-exports those it returns under the same names
// (errors.go), so errors.Is works across the recipes.
package leases
