// Package barrier is Apache Curator's barriers, in Curator's wire format,
// so that Go and Java processes using Curator 5.x wait at the same
// barriers.
//
// A Barrier (Curator's DistributedBarrier) is one node: while it exists,
// Wait blocks; Remove deletes it and lets every waiter through.
//
// A Double (Curator's DistributedDoubleBarrier) synchronizes the start and
// the end of a computation among a number of members. Each member that
// enters creates an ephemeral node named by a fresh UUID under the
// barrier's path, and the one whose node brings the count to the
// threshold creates path/ready, which opens the barrier to every member
// waiting on it. A member leaves with Leave, which blocks until every
// member's node is gone; the member first in name order deletes its node
// last. The last member to leave deletes ready.
//
// Guarantees:
//
//   - No member's Enter returns before the threshold was reached: ready is
//     created only by a member that counted that many nodes, its own
//     included, while its session (and so its node) lived.
//   - No member's Leave returns nil while another member's node exists,
//     Go or Java: Go and Java members enter and leave together.
//   - Nothing left behind: an Enter that fails or whose ctx ends, and
//     every Leave, delete the member's node under a context of their own.
//   - Lost answers: a member's create whose answer was lost finds the node
//     it made (its name is the member's own); a delete or a create of
//     ready whose answer was lost is no error.
//   - A member whose session is lost while it has its node fails with
//     ErrLost: its node went with the session, and the others no longer
//     count it.
//
// Not guaranteed, as in Curator: the threshold is not a limit (members
// that arrive while ready exists enter at once); a member that gives up
// its Enter at the moment another completes the count may have been
// counted; a path serves one round at a time (a member that enters before
// the last of the previous round has deleted ready passes at once); and a
// member whose connection is down while ready is created and deleted again
// waits on. A Curator 5.4 member stops waiting in its leave when a single
// node other than its own is left, so a Go member that gives up its Leave
// while it is first in name order may let a Java member go before the last
// member has left.
//
// Cost: an Enter into an open barrier is two requests (a watch on ready,
// the member's create); one that must wait adds a listing, and each look
// after a wake one more; the member that completes the count adds the
// create of ready (four in all). The last member to leave spends three (a
// listing, its delete, the delete of ready); the others a listing, a watch
// and their delete, and a listing and a watch for each node they follow
// in turn.
//
// Errors: the sentinels every recipe shares live in the root package
// zkrecipes; this package re-exports those it returns under the same names
// (errors.go), so errors.Is works across the recipes.
package barrier
