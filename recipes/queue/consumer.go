package queue

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/petermattis/goid"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Func is a consumer's function, Curator's QueueConsumer.consumeMessage:
// called with each item taken, one node's items in order. ctx ends when
// the consumer is closed and, with a lock path, when the session of the
// item's lock is lost (another consumer may be taking the item then). In
// the lock-safe mode an error gives the item back (see ErrorMode), unless
// ctx has ended: the item is then left as it was; without a lock path the
// item is gone already, and an error is only logged.
type Func[T any] func(ctx context.Context, item T) error

// TxFunc is a transactional consumer's function: it returns the
// operations that apply the item's effect, which the consumer runs in one
// Client.Multi with the item's delete. An error, or a transaction that
// fails at one of these operations, gives the item back (see ErrorMode).
type TxFunc[T any] func(ctx context.Context, item T) ([]framework.Op, error)

// Consumer takes the items of a queue in the background, from Start until
// Close or the end of Start's ctx, and hands each to its function. It
// lists the queue once per batch with a watch (Curator's ChildrenCache),
// takes the batch's items in the queue's order, and waits on the watch
// when there is nothing to take. Make one with a queue's NewConsumer or
// NewTxConsumer.
type Consumer[T any] struct {
	b    base[T]
	fn   Func[T]
	tx   TxFunc[T]
	opts consumerOptions
	life *recipe.Background

	// skipped holds the foreign and malformed nodes already logged, of
	// the last listing: the run loop's alone.
	skipped map[string]bool
	// view is the backlog as the directory's recursive watch tells it,
	// while the consumer follows it (nil: it lists), and stag its
	// stagger: set by the run loop before its takes begin.
	view *view
	stag *stagger
	// workers holds the ids of the goroutines that take items, so that a
	// Close from the function does not wait for itself.
	workers sync.Map
}

func newConsumer[T any](b base[T], fn Func[T], tx TxFunc[T], opts []Option) (*Consumer[T], error) {
	all, err := recipe.Options(opts, ErrInvalidArgument)
	if err == nil {
		err = all.parts.Refuse(consumerPart, ErrInvalidArgument)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: consumer: %w", b.c.what, err)
	}
	o := all.consumer
	if o.concurrency == 0 {
		o.concurrency = 1
	}
	if !o.refreshSet && b.c.kind == priority {
		o.refresh = 1
	}
	return &Consumer[T]{
		b: b, fn: fn, tx: tx, opts: o, skipped: make(map[string]bool),
		life: recipe.NewBackground(b.c.what + ": consumer"),
	}, nil
}

// Path returns the queue's directory.
func (cn *Consumer[T]) Path() string { return cn.b.c.path }

// Start begins taking items on a goroutine of the consumer's, until ctx
// ends or Close. A second Start is ErrStarted, one after Close ErrClosed,
// and one with ctx ended leaves the consumer unstarted.
func (cn *Consumer[T]) Start(ctx context.Context) error { return cn.life.Start(ctx, cn.run) }

// Close stops the consumer and waits, until ctx ends, for it to stop: the
// functions under way see their ctx end, and an item whose function
// returned nil is still deleted (with its effect, for a transactional
// consumer); one whose function failed as its ctx ended is left in the
// queue untouched. It may be called more than once, and from the function.
func (cn *Consumer[T]) Close(ctx context.Context) error {
	if _, inFunction := cn.workers.Load(goid.Get()); inFunction {
		cn.life.Closing() // the loop waits for this function: it cannot wait for the loop
		return nil
	}
	return cn.life.Close(ctx)
}

// Done returns a channel closed once the consumer has stopped.
func (cn *Consumer[T]) Done() <-chan struct{} { return cn.life.Done() }

// Err says why the consumer stopped on its own (Start's ctx ended, or the
// client was closed: ErrClosed); nil while it runs and after Close.
func (cn *Consumer[T]) Err() error { return cn.life.Err() }

// retryPause is how long the consumer waits after a failed listing.
const retryPause = 200 * time.Millisecond

// run is the consumer's loop: it follows the queue through a recursive
// watch of its directory where the server has one (follow), else it
// lists, takes a batch and waits for a change.
func (cn *Consumer[T]) run(ctx context.Context) {
	if cn.follow(ctx) {
		return
	}
	for ctx.Err() == nil {
		names, changed, err := cn.list(ctx)
		if err != nil {
			if !cn.failed(ctx, err) {
				return
			}
			continue
		}
		items, due := cn.ready(names)
		b := cn.batch(ctx, items, due, func() bool { return fired(changed) })
		if b.took {
			continue // list again at once: more may have come
		}
		cn.idle(ctx, changed, nil, b)
	}
}

// list lists the queue and sets a watch, creating the directories if
// they are missing.
func (cn *Consumer[T]) list(ctx context.Context) ([]string, <-chan zk.Event, error) {
	names, _, changed, err := cn.b.c.client.ChildrenW(ctx, cn.b.c.path)
	if recipe.IsNoNode(err) {
		if err := cn.b.c.ensureDirs(ctx); err != nil {
			return nil, nil, err
		}
		names, _, changed, err = cn.b.c.client.ChildrenW(ctx, cn.b.c.path)
	}
	return names, changed, err
}

// failed logs a failed listing and waits before the next; false when the
// consumer must stop (it was closed, or its client was).
func (cn *Consumer[T]) failed(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	if errors.Is(err, framework.ErrClosed) {
		cn.life.Stopped(fmt.Errorf("%s: consumer: %w", cn.b.c.what, err)) // err is ErrClosed
		return false
	}
	cn.b.c.log().Debug("queue listing failed; trying again", "path", cn.b.c.path, "err", err)
	select {
	case <-time.After(retryPause):
		return true
	case <-ctx.Done():
		return false
	}
}

// batchResult is what a batch found.
type batchResult struct {
	took bool          // it took an item: list again at once
	due  time.Duration // > 0: the next delayed item is due then
	held string        // the lock node of an item another consumer holds
	// failed: a take failed on its own (not for another consumer): list
	// again after retryPause, since the queue may not change.
	failed bool
	// changed: the listing's watch fired during the batch (and its event
	// was taken off the channel).
	changed bool
}

// idle waits for the queue to change (the listing's watch fires, or the
// view wakes), the next delayed item to fall due, the lock of an item held
// elsewhere to go (its holder may give the item back without changing the
// queue), or ctx.
func (cn *Consumer[T]) idle(ctx context.Context, changed <-chan zk.Event, wake <-chan struct{}, b batchResult) {
	var due <-chan time.Time
	if b.failed && (b.due <= 0 || b.due > retryPause) {
		b.due = retryPause
	}
	if b.due > 0 {
		t := time.NewTimer(b.due)
		defer t.Stop()
		due = t.C
	}
	if b.changed {
		return
	}
	var released <-chan zk.Event
	if b.held != "" {
		held, _, ev, err := cn.b.c.client.ExistsW(ctx, b.held)
		if err != nil || !held {
			return // gone already, or unknown: list again
		}
		released = ev
	}
	select {
	case <-changed:
	case <-wake:
	case <-due:
	case <-released:
	case <-ctx.Done():
	}
}

// ready returns the items of a listing a consumer may take now, in the
// queue's order, and how long until the next delayed one is due.
func (cn *Consumer[T]) ready(names []string) ([]string, time.Duration) {
	now := time.Now()
	items := names[:0]
	var due time.Duration
	seen := make(map[string]bool, len(cn.skipped))
	for _, name := range names {
		if cn.skipped[name] {
			seen[name] = true
			continue
		}
		if !isItem(name) {
			cn.b.c.log().Warn("foreign node in queue path", "path", cn.b.c.path, "node", name)
			seen[name] = true
			continue
		}
		if w := cn.b.c.kind.wait(name, now); w > 0 {
			if due == 0 || w < due {
				due = w
			}
			continue
		}
		items = append(items, name)
	}
	cn.skipped = seen // forget what is gone
	cn.b.c.kind.sortItems(items)
	return items, due
}

// outcome is what taking one item came to.
type outcome struct {
	name     string
	took     bool          // the consumer took it
	held     string        // another consumer holds its lock node
	gone     bool          // another consumer took it first
	bad      error         // a malformed node, left where it is
	refusing bool          // the consumer is stopping
	dur      time.Duration // how long the take took, for the stagger
}

// batch takes items (ready, in the queue's order), up to the concurrency
// at once. After an item that another consumer took first it jumps to a
// random later one, so that consumers listing the same batch spread out
// rather than trail each other; what it jumped over waits for the next
// look. changed says whether an item came since the batch was listed.
func (cn *Consumer[T]) batch(ctx context.Context, items []string, due time.Duration, changed func() bool) batchResult {
	res := batchResult{due: due}
	slots := make(chan struct{}, cn.opts.concurrency)
	results := make(chan outcome, len(items))
	sent, got := 0, 0
	note := func(o outcome) {
		got++
		cn.note(&res, o)
	}
	for next := 0; next < len(items) && ctx.Err() == nil; {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			continue
		}
		if ctx.Err() != nil { // both were ready, and select chose the slot
			<-slots
			continue
		}
		// With a slot, the items before have been taken (with one slot) or
		// are under way: a change now may be an item that goes first.
		if cn.opts.refresh > 0 && sent >= cn.opts.refresh && changed() {
			<-slots
			res.changed = true
			break // list again, for order
		}
		next = drain(results, note, next, len(items))
		name := items[next]
		next++
		sent++
		go func() { // ends when the take does: the client's retry policy bounds it
			id := goid.Get()
			cn.workers.Store(id, struct{}{})
			defer func() { cn.workers.Delete(id); <-slots }()
			begun := time.Now()
			o := cn.take(ctx, name)
			o.dur = time.Since(begun)
			results <- o
		}()
	}
	for got < sent {
		note(<-results)
	}
	return res
}

// drain notes the outcomes that have come in, without waiting, and
// returns the index of the item to take next out of n: after an item that
// another consumer took first, a random one of those left.
func drain(results <-chan outcome, note func(outcome), next, n int) int {
	for {
		select {
		case o := <-results:
			note(o)
			if (o.gone || o.held != "") && next < n {
				next += rand.IntN(n - next)
			}
		default:
			return next
		}
	}
}

// note adds a take's outcome to the batch's result, and warns once of a
// malformed node it leaves in place.
func (cn *Consumer[T]) note(res *batchResult, o outcome) {
	if cn.stag != nil {
		cn.stag.learn(o)
	}
	res.took = res.took || o.took
	if o.held != "" && res.held == "" {
		res.held = o.held
	}
	res.failed = res.failed || !o.took && o.held == "" && !o.gone && o.bad == nil && !o.refusing
	if o.bad != nil && !cn.skipped[o.name] {
		cn.skipped[o.name] = true
		cn.b.c.log().Warn("malformed queue node left in place", "node", cn.b.c.itemPath(o.name), "err", o.bad)
	}
}

// fired reports whether a one-shot watch has fired, without waiting.
func fired(changed <-chan zk.Event) bool {
	select {
	case <-changed:
		return true
	default:
		return false
	}
}
