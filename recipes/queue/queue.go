package queue

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// base is what the typed queues share: the core and the codec.
type base[T any] struct {
	c     *core
	codec Codec[T]
}

func newBase[T any](client *framework.Client, path string, codec Codec[T], k kind, opts []Option) (base[T], error) {
	if codec == nil {
		return base[T]{}, fmt.Errorf("queue %s: %w: nil codec", path, ErrInvalidArgument)
	}
	c, err := newCore(client, path, k, opts)
	return base[T]{c: c, codec: codec}, err
}

// Path returns the queue's directory, as given to New.
func (b base[T]) Path() string { return b.c.path }

// Close ends the queue as a producer: puts under way finish, later ones
// fail with ErrClosed, and the producer's marker in the lock path is
// deleted, even when ctx has ended (ctx bounds only the wait for the puts
// under way: a close that stops waiting returns ctx's error and deletes
// the marker once they are done). It may be called more than once, and at
// once. Consumers made from the queue run on until their own Close.
func (b base[T]) Close(ctx context.Context) error { return b.c.prod.close(ctx) }

// NewConsumer returns a consumer that calls fn with each item it takes.
// Without a lock path it deletes the item first (at most once, Curator's
// default); with one it holds the item's lock node while fn runs and
// deletes the item after fn has returned nil (lock-safe, at least once).
// Start it to begin.
func (b base[T]) NewConsumer(fn Func[T], opts ...Option) (*Consumer[T], error) {
	if fn == nil {
		return nil, fmt.Errorf("%s: %w: nil consumer function", b.c.what, ErrInvalidArgument)
	}
	return newConsumer(b, fn, nil, opts)
}

// NewTxConsumer returns a consumer that applies each item's effect in
// ZooKeeper together with the item's delete: fn returns the operations,
// and the consumer runs them with the delete (and the release of the
// item's lock node, with a lock path) in one Client.Multi. So the effect is
// applied exactly once, even when the consumer dies or the answer is lost:
// the item can be deleted once only, and never without its effect. fn may
// still be called more than once for an item (its transaction did not
// run); it must write to ZooKeeper only through the operations it returns.
// A queue node that holds several items (PutMulti) runs them all in one
// transaction. With Curator's lock-safe consumers on the same queue, give
// the queue their lock path.
func (b base[T]) NewTxConsumer(fn TxFunc[T], opts ...Option) (*Consumer[T], error) {
	if fn == nil {
		return nil, fmt.Errorf("%s: %w: nil consumer function", b.c.what, ErrInvalidArgument)
	}
	return newConsumer(b, nil, fn, opts)
}

// putNode puts one node under name holding items.
func (b base[T]) putNode(ctx context.Context, name string, items []T) error {
	if len(items) == 0 {
		return fmt.Errorf("%s: put: %w: no item", b.c.what, ErrInvalidArgument)
	}
	data, err := encode(b.c, b.codec, items)
	if err != nil {
		return err
	}
	return b.c.prod.put(ctx, name, data)
}

// Queue is Curator's DistributedQueue: items in FIFO order, in nodes
// "queue-<sequence>" under the queue's directory. It is safe for
// concurrent use.
type Queue[T any] struct{ base[T] }

// New returns the queue whose items live under path, encoded by codec. It
// validates and does no I/O; the directory is created by the first put or
// consumer that needs it.
func New[T any](client *framework.Client, path string, codec Codec[T], opts ...Option) (*Queue[T], error) {
	b, err := newBase(client, path, codec, fifo, opts)
	if err != nil {
		return nil, err
	}
	return &Queue[T]{b}, nil
}

// Put adds item at the end of the queue and returns once the server has
// it. A put whose answer was lost is neither lost nor repeated when the
// queue has a lock path (see WithLockPath); without one it fails with
// ErrOutcomeUnknown. Puts that wait at the same time go in one transaction.
// When ctx ends first, the put is withdrawn if it was not sent yet (ctx's
// error), or it fails with ErrOutcomeUnknown if it was. While the client
// is not connected, puts wait unsent.
func (q *Queue[T]) Put(ctx context.Context, item T) error {
	return q.putNode(ctx, itemPrefix, []T{item})
}

// PutMulti adds items to the queue in one node, all or none (Curator's
// putMulti): a consumer takes them together, in order. They must fit in one
// request (framework.MaxRequestSize).
func (q *Queue[T]) PutMulti(ctx context.Context, items []T) error {
	return q.putNode(ctx, itemPrefix, items)
}

// PriorityQueue is Curator's DistributedPriorityQueue: consumers take the
// items of the lowest priority number first, and in FIFO order among equal
// priorities. The priority is part of the node's name. It is safe for
// concurrent use.
type PriorityQueue[T any] struct{ base[T] }

// NewPriorityQueue returns the priority queue whose items live under
// path, encoded by codec. It validates and does no I/O.
func NewPriorityQueue[T any](client *framework.Client, path string, codec Codec[T], opts ...Option) (*PriorityQueue[T], error) {
	b, err := newBase(client, path, codec, priority, opts)
	if err != nil {
		return nil, err
	}
	return &PriorityQueue[T]{b}, nil
}

// Put adds item with a priority, a Java int: a priority outside
// [math.MinInt32, math.MaxInt32] is ErrInvalidArgument. Lower numbers go
// first. Otherwise as Queue.Put.
func (q *PriorityQueue[T]) Put(ctx context.Context, item T, priority int) error {
	return q.PutMulti(ctx, []T{item}, priority)
}

// PutMulti adds items in one node with a priority, as Queue.PutMulti.
func (q *PriorityQueue[T]) PutMulti(ctx context.Context, items []T, priority int) error {
	if priority < math.MinInt32 || priority > math.MaxInt32 {
		return fmt.Errorf("%s: put: %w: priority %d is not a Java int", q.c.what, ErrInvalidArgument, priority)
	}
	return q.putNode(ctx, priorityName(int32(priority)), items)
}

// DelayQueue is Curator's DistributedDelayQueue: an item is taken no
// sooner than its time, in the order of the times. The time is part of the
// node's name, in milliseconds since the Unix epoch, and consumers compare
// it with their own wall clock, as Curator's do. It is safe for concurrent
// use.
type DelayQueue[T any] struct{ base[T] }

// NewDelayQueue returns the delay queue whose items live under path,
// encoded by codec. It validates and does no I/O.
func NewDelayQueue[T any](client *framework.Client, path string, codec Codec[T], opts ...Option) (*DelayQueue[T], error) {
	b, err := newBase(client, path, codec, delay, opts)
	if err != nil {
		return nil, err
	}
	return &DelayQueue[T]{b}, nil
}

// Put adds item to be taken at until or later. A time at or before the
// Unix epoch is ErrInvalidArgument, as in Curator. Otherwise as Queue.Put.
func (q *DelayQueue[T]) Put(ctx context.Context, item T, until time.Time) error {
	return q.PutMulti(ctx, []T{item}, until)
}

// PutMulti adds items in one node to be taken at until or later, as
// Queue.PutMulti.
func (q *DelayQueue[T]) PutMulti(ctx context.Context, items []T, until time.Time) error {
	ms := until.UnixMilli()
	if ms <= 0 {
		return fmt.Errorf("%s: put: %w: time %v is not after the epoch", q.c.what, ErrInvalidArgument, until)
	}
	return q.putNode(ctx, delayName(ms), items)
}

// IDQueue is Curator's DistributedIdQueue: a FIFO queue whose items carry
// an id in their node's name, by which Remove takes them out. It is safe
// for concurrent use.
type IDQueue[T any] struct{ base[T] }

// NewIDQueue returns the id queue whose items live under path, encoded by
// codec. It validates and does no I/O.
func NewIDQueue[T any](client *framework.Client, path string, codec Codec[T], opts ...Option) (*IDQueue[T], error) {
	b, err := newBase(client, path, codec, ids, opts)
	if err != nil {
		return nil, err
	}
	return &IDQueue[T]{b}, nil
}

// Put adds item under id. The id goes into the node's name with '/' and
// '|' replaced by '_', as Curator does; an empty id, or one that makes no
// valid node name, is ErrInvalidArgument. Several items may share an id.
// Otherwise as Queue.Put.
func (q *IDQueue[T]) Put(ctx context.Context, item T, id string) error {
	name, err := q.idName(id)
	if err != nil {
		return err
	}
	return q.putNode(ctx, name, []T{item})
}

// idName returns the name before the sequence of an item with id.
func (q *IDQueue[T]) idName(id string) (string, error) {
	name := idName(id)
	if id == "" {
		return "", fmt.Errorf("%s: %w: empty id", q.c.what, ErrInvalidArgument)
	}
	if err := zkpath.ValidateSequential(q.c.itemPath(name)); err != nil {
		return "", fmt.Errorf("%s: %w: id %q: %w", q.c.what, ErrInvalidArgument, id, err)
	}
	return name, nil
}
