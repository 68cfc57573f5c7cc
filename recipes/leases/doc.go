// Package leases is the held permit of a ZooKeeper semaphore: a Lease
// stands for one lease node, an ephemeral node of the holder's session,
// such as the path/leases/_c_<uuid>-lease-<sequence> nodes of Curator's
// InterProcessSemaphoreV2 that package semaphore issues.
//
// Guarantees:
//
//   - Return deletes the lease node once: returning again, from any
//     goroutine, is harmless and returns nil. A node whose delete fails is
//     deleted in the background once the client is connected again, so a
//     returned lease never keeps its permit.
//   - Loss is signalled: Lost is closed when the lease ends without a
//     return. Under the default framework.StandardErrorPolicy a suspended
//     connection already ends the lease, before the server can expire the
//     session and give the permit to someone else; the node is then deleted
//     once connected. Session loss ends it under every policy, and so does
//     someone else deleting the node, which the lease watches from the
//     first call to Lost (one request; a lease that is never asked about
//     loss costs nothing beyond its create and its delete).
//   - A time-bounded lease (WithMaxHold) is returned by its own timer when
//     the maximum hold time has passed, and signalled lost.
//
// Not guaranteed: holding is never certain until the return, since the
// server may have expired the session already; and the maximum hold time is
// enforced by the holder's process, so a process that is stopped as a whole
// (not just a goroutine) keeps the lease until its session expires.
package leases
