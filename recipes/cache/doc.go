// Package cache keeps a node and its subtree in memory, current with the
// server through watches: Apache Curator's CuratorCache (and, by the
// shapes WithMaxDepth gives, its NodeCache, PathChildrenCache and
// TreeCache), with Curator's events: Created, Changed and Deleted per
// node, and Initialized once after the first complete load.
//
// How it follows the server: on ZooKeeper 3.6 and later the cache sets
// one recursive watch of its root (a persistent one for the root alone)
// and reads in multi-reads of up to a thousand reads, a few in flight:
// a tree of 10,000 nodes loads in 16 requests, the watch included. A
// notification names a node; the cache reads it, and emits the
// difference between the read and what it holds. A node created since
// the cache last read its parent is read with its parent after it, in the
// same multi-read (one more read of the parent's data and Stat for the
// nodes of a multi-read that share it), which tells under which
// incarnation of the parent it was created. After a reconnect or a new
// session, it asks the server which of its nodes changed after the last
// zxid the watch told (framework.Client.ChangedSince, one request per 128
// KiB of paths) and reads those alone, each once (the notifications the
// question itself draws come before its answer, and join what it
// reports): a reconnect costs reads in proportion to what changed, not to
// the tree (a thousand changes of a 1,001-node tree, five requests). On
// an older server, or another implementation without persistent watches,
// the cache sets a one-shot data and child watch on each node, as
// Curator's TreeCache did, and the client sets them again after a
// reconnect relative to the last zxid it saw, so that the server fires
// only those whose nodes changed; after a new session it reads every node
// again, and emits only the differences. Every watch is the client's: the
// cache adds nothing to go-zookeeper's watcher table.
//
// Memory: the cache keeps each node's data and Stat, and its name in its
// parent's index; no path is kept, Get finds a node by walking down its
// path's names. A node of a tree of 10,000 nodes of 100-byte values costs
// about 140 bytes of heap beyond its data, what the client keeps of the
// load included (BenchmarkCache_HeapPerNode).
//
// Guarantees:
//
//   - The events of a path form a valid sequence, in the server's order:
//     Created of a node the cache does not hold, Changed and Deleted of
//     one it holds, a Changed only to a later version of the same
//     incarnation (Czxid), a parent's Created before its children's and
//     its Deleted after theirs. A node deleted and created again while
//     the cache was away is a Deleted, then a Created.
//   - A Deleted is told only of an incarnation the server deleted: the
//     cache tells a node only under the incarnation of its parent that it
//     was created under, never under an older one read before (whose
//     Deleted would take the node with it while it lives).
//   - The cache moves only forward: every event follows a read that came
//     after the notification that caused it, so an old notification
//     taken late costs a read and no event.
//   - After any fault (a lost connection, an expired session, a restarted
//     or new leader, a partition), once the faults stop the cache holds the
//     server's tree, node by node (path, data, version), and told every
//     difference with events: a new session clears nothing silently.
//   - Listeners are called one at a time, in order, on the cache's own
//     goroutine; the client's goroutines never wait for them.
//
// Not guaranteed: the cache is not a snapshot of one instant. Writes that
// follow each other fast may reach the cache as one event (a create and
// a change as a Created with the last data), as with Curator. A node's
// Stat is that of its last read: a child's creation moves the parent's
// NumChildren and Pzxid on the server without an event. A listener that
// blocks holds the cache back; meanwhile the watch's events wait as
// the reads they ask for, one per node however many events it had.
package cache
