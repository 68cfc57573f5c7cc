// Package node keeps nodes that outlive a session: Curator's
// PersistentNode (Node) and GroupMember.
//
// A Node creates its node at Start and keeps it while the process wants
// it: created again after its session is lost (an ephemeral node goes
// with its session) or after someone deletes it, with the data SetData
// last set, and deleted at Close, or when Start's ctx ends. Its listeners
// hear each create, and each failure that time alone does not cure (no
// permission, another session's node in the way). A GroupMember is an
// ephemeral Node named by the member's id under the group's path, with
// the group read from a cache (recipes/cache) of the path's children.
//
// Guarantees:
//
//   - Never two nodes for one Node: a create whose answer was lost is
//     found again, by its name (a node of that name owned by the current
//     session is the one it made), by its protection id (WithProtection;
//     sequential modes have it by default), or, for a sequential name
//     without one (WithoutProtection), as the node of its session and
//     name that holds its data; a node of the process's lost session that
//     is still there is deleted as the new one is made.
//   - The data SetData last set is the node's: a create on its way with
//     older data is followed by a write of it, so no node keeps older
//     data for good; AwaitData waits until the node on the server has it.
//   - Created again within one round trip of a new session: the node's
//     first request in it is the create.
//   - Nothing left behind after Close (or the end of Start's ctx): the
//     node is deleted, and a create that the stop cut short is deleted
//     after it, by a look sent after it on the connection (an ephemeral
//     node if its owner is the session, a persistent one if it holds the
//     data that create carried: one of someone else's in its place
//     stays; a sequential one of WithoutProtection by its session and
//     data), or, protected, by the client.
//   - A node of another session in the way (another process with the same
//     member id) is never taken over: the Node waits for it to go, and
//     says so with a Failed event. A persistent node in the way is taken
//     over and given the Node's data, as Curator does.
//
// Not guaranteed: between the loss of a session and the create in the
// next, the node is missing (for an ephemeral node, once the server has
// expired the session); while the server cannot be reached, Close cannot
// delete the node, and an ephemeral one goes with its session.
package node
