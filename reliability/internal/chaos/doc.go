// Package chaos breaks a ZooKeeper ensemble on purpose while lock recipes
// are in use, and checks the promise the recipes make under the standard
// error policy (DESIGN section 4): no two holds of an exclusive lock
// overlap, and no more than the maximum of a semaphore's leases do, unless
// one of them was signalled lost before the overlap began; fencing tokens
// of successive holders increase; nothing is left on the server.
//
// The package has three parts, each usable alone:
//
//   - Ledger records every hold, [acquired, released or lost], with its
//     fencing token, and Check finds the violations. It is pure: its tests
//     feed it overlapping holds without a server.
//   - Recipe, Locker and Held are the small adapter through which a recipe
//     joins the run. mutex.go and semaphore.go adapt recipes/mutex and
//     recipes/semaphore; curator.go adapts the Curator interop peer.
//   - Schedule runs faults (connection cuts, lost answers to creates,
//     versioned sets, multis and auths, pauses past the session timeout,
//     one-way partitions past it in either direction, slow links, a
//     follower restart, a follower cut off from the other members while
//     its clients still reach it, a leader kill and restart) against a
//     local ensemble and the fault-injecting links in front of each
//     client; Worker loops on one Locker and records its holds.
//   - The edges (edges.go, count.go, fence.go): writers that downgrade,
//     explicit owners that acquire in one goroutine and release in
//     another, several leases in one transaction, a shared count
//     incremented by the documented TrySet loop (Tally: the count must
//     rise by exactly the increments believed applied), and TTL leases
//     taken over with Resume by a second client, fenced by a Resource
//     that keeps the highest token.
//   - The counter and the barrier (counter.go, barrier.go): one
//     atomicvalue.Long that every client increments (Counter: its value
//     must lie between the increments believed applied and those plus
//     the ones whose answer was lost), and rounds of a double barrier
//     among the clients (DoubleRounds: no member's Leave returns before
//     every member of its round began its Enter, nor before another
//     member that left began its Leave).
//   - The queues (queue.go, queuework.go): producers put numbered items
//     into a lock-safe and a transactional queue (recipes/queue) and
//     consumers take them (QueueLedger: every item put is taken, at least
//     once in the lock-safe mode, where only a run whose lock went with
//     its session or whose closing transaction failed may be followed by
//     another; and the transactional mode's effects, nodes written in the
//     item's transaction, are there exactly once). A Simple queue
//     (simple.go) is offered items and taken from at most once
//     (SimpleLedger: no item twice, and no more items missing than takes
//     whose delete lost its answer).
//
// Every instant comes from one Clock, CLOCK_MONOTONIC, which the Curator
// peer stamps its own holds on (PeerHeld), so that an overlap shorter than
// a round trip to the peer is not hidden. A run proves its faults bit: in
// a run of MinBiteRun or longer, Report.Problems fails it when no hold was
// interrupted, no answer dropped or no session expired under a holder.
//
// A recipe joins with one file here and one line in the list of recipes of
// the chaos test (chaosRecipes in reliability/chaos_test.go). The
// read/write lock (rwlock.go) gives the write lock (Exclusive true) to
// even clients and the read lock to odd ones, with Limit 0 so that readers
// share freely; the Ledger then checks that no write hold overlaps any
// other hold, and the fencing order of the write holds.
//
// The chaos test wires these parts to an ensemble from zktesting
// and proxies from internal/zktest; `make chaos DURATION=30m` runs it for
// longer, and CHAOS_SEED replays a schedule. The package lives under
// reliability/internal because only the reliability suite uses it, and
// outside internal/zktest because it imports the recipes, which zktest's
// own tests must not depend on.
package chaos
