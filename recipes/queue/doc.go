// Package queue is Apache Curator's distributed queues in Curator 5.x's
// wire format: a Go producer's items are taken by Curator's consumers, and
// Curator's producers' by Go's.
//
//   - [Queue] is DistributedQueue: items in nodes "queue-<sequence>",
//     their data in Curator's format (see [Encode]: a version, each item
//     with a marker and a length, an end marker), encoded by a [Codec]
//     (Curator's QueueSerializer), taken in FIFO order.
//   - [PriorityQueue] is DistributedPriorityQueue: the priority in the node
//     name ("queue-" + sign digit + 8 hex digits), so that name order is
//     priority order, lowest number first, negatives included.
//   - [DelayQueue] is DistributedDelayQueue: the epoch in milliseconds in
//     the name ("queue-|<hex>|"); an item is taken no sooner, by the
//     consumer's wall clock, as Curator's.
//   - [IDQueue] is DistributedIdQueue: an id in the name ("queue-|<id>|"),
//     by which [IDQueue.Remove] deletes items.
//   - [Simple] is SimpleDistributedQueue, ZooKeeper's own queue recipe:
//     raw bytes in "qn-<sequence>", Offer, Take, Poll and Peek.
//
// The typed queues are generic over the item type through a Codec, as
// Curator's are over QueueSerializer<T>: the node format is fixed, the
// bytes of each item are the codec's ([StringCodec], [BytesCodec], or the
// caller's own, such as JSON).
//
// # Consuming, and what each mode gives
//
// A [Consumer] runs in the background (Start, Close, Done, Err). On
// ZooKeeper 3.6 and later it follows the queue through a recursive watch
// of its directory (framework.Hooks.WatchFunc): the watch tells it the
// name of every item created and deleted, so it keeps its own view of the
// backlog and lists the directory only to begin, after a reconnect (the
// server tells a watch nothing of what changed meanwhile) and when its
// view left items out (see Memory). A take of an item the view has seen
// deleted sends nothing. On an older server it lists the queue once per
// batch with a one-shot watch, as Curator's ChildrenCache does; there a
// consumer busy with a batch lists nothing until it is done, and idle
// consumers each list once per change, as Curator's do.
//
// Consumers of one queue share its items out rather than all reaching
// for each new one. Items fall into 64 buckets by a hash of their names;
// a bucket is, to each consumer, the one's that took its last item: a
// consumer takes the items of its buckets at once, in the queue's order,
// and another's only after it has waited a few takes' time (and a wait of
// its own, so that helpers come one at a time), which is how the items of
// a consumer that is gone or behind pass to another. A consumer that hears
// no one else take items takes every item at once, in the queue's order.
// So idle consumers cost no request per item each (no herd): an item costs
// its take, whatever the number of consumers waiting. A take that loses a
// race costs the loser one request (a lock create, or a read) or two (a
// read and a delete). With one consumer the order is the queue's (an item
// of higher priority put meanwhile included); with several, each takes its
// own items in order, and nobody's order is the queue's (as in Curator,
// whose consumers each list and take in order, colliding).
//
//   - No lock path (Curator's default): the item is deleted, then its
//     function called: at most once. A delete whose answer was lost drops
//     the item rather than risk handing it out twice.
//   - Lock-safe (WithLockPath, Curator's lockPath): an ephemeral lock node
//     named after the item under the lock path stands while the function
//     runs; the item and the lock are deleted together after it returned
//     nil, so an item is never lost: at least once. A consumer that dies
//     leaves the item to another when its session ends; a failed function
//     gives it back (ErrorMode). Go and Curator consumers honour each
//     other's locks when they share the lock path.
//   - Transactional ([Queue.NewTxConsumer], beyond Curator): the function
//     returns operations that the consumer runs in one Client.Multi with the
//     item's delete, so an effect that lives in ZooKeeper is applied exactly
//     once, even when the consumer dies or the answer is lost; the function
//     itself may run more than once. With a lock path it also locks as the
//     lock-safe mode does, so Curator's lock-safe consumers leave its items
//     alone.
//
// A closing transaction whose answer was lost is looked into by its lock
// node, which only that transaction or the end of its session deletes:
// standing and the session's own, the transaction did not run and is sent
// again (each run deletes the lock, so it cannot run twice); gone while
// the session lives, it ran.
//
// # Putting
//
// A put is one persistent sequential create; puts that wait at the same
// time go in one transaction (group commit), each caller's in order. Curator
// retries a create whose answer was lost, which can leave a duplicate; here
// no put is ever applied twice. With a lock path the producer keeps a
// marker there (an ephemeral node, "_c_<uuid>-producer") whose version each
// put's transaction sets, conditionally: sent again after a lost answer,
// the transaction fails at the marker if the lost run applied it, so the
// put is applied exactly once and reported applied. Without a lock path a
// put whose answer was lost fails with ErrOutcomeUnknown. Curator's
// consumers never list the lock path, and the marker's name is no item's.
//
// # Memory
//
// A producer holds what its callers are putting, in batches that fit one
// request; there is no background buffer, and WithMaxItems makes a put wait
// while the queue is full. A consumer holds the data of at most
// WithConcurrency nodes, and names: following the watch, the first 4,096
// items of the queue in its order (it forgets the rest, and lists again
// once it has none of those left); while it reads a listing, the whole
// directory's names, as Curator's consumers do.
//
// # Differences from Curator
//
// Beyond the transactional mode and the puts that are never repeated: a
// malformed node is left in place and logged (Curator's consumers log and
// delete it); an item given back keeps its priority, time or id (Curator's
// priority and delay queues requeue it as a plain "queue-" item);
// IDQueue.Remove compares ids as Put writes them; the closing delete of
// item and lock is one transaction (Curator's are two requests). Bytes
// after a node's end marker are ignored, as Curator ignores them.
//
// Not guaranteed: FIFO across several consumers; a delay measured by any
// clock but the consumer's wall clock; a put's or a closing transaction's
// outcome when the session ended with its answer (ErrOutcomeUnknown, or the
// item given to another consumer, at least once). A malformed node (not in
// Curator's format, or an item the codec cannot decode) is logged and left
// in place (Curator deletes it); foreign nodes are passed over.
package queue
