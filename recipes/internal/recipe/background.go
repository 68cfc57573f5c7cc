package recipe

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/petermattis/goid"

	"github.com/zkrecipes/zkrecipes"
)

// Background is the life of a recipe that runs on a goroutine of its own
// from Start to Close or the end of Start's ctx (a cache, a node), the
// shape CONTRIBUTING.md's "Running in the background" names: ErrStarted,
// ErrClosed, Done, Err, and a Close that may be called from the recipe's
// own goroutine (a listener) without waiting for itself.
type Background struct {
	what string // "cache /a", for errors

	mu      sync.Mutex
	started bool
	closed  bool
	err     error
	ctx     context.Context
	cancel  context.CancelCauseFunc
	done    chan struct{}
	loopID  atomic.Int64
}

// NewBackground returns the life of a recipe that errors name as what.
func NewBackground(what string) *Background {
	return &Background{what: what, done: make(chan struct{})}
}

// Start runs run on a goroutine of its own with a ctx that ends with
// Start's ctx or at Close (its cause then ErrClosed, so that what run
// ends for Close says so); Done closes when run returns.
func (b *Background) Start(ctx context.Context, run func(ctx context.Context)) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closed:
		return fmt.Errorf("%s: start: %w", b.what, zkrecipes.ErrClosed)
	case b.started:
		return fmt.Errorf("%s: start: %w", b.what, zkrecipes.ErrStarted)
	case ctx.Err() != nil:
		return fmt.Errorf("%s: start: %w", b.what, ctx.Err())
	}
	b.started = true
	b.ctx, b.cancel = context.WithCancelCause(ctx)
	runCtx := b.ctx
	ready := make(chan struct{})
	// Ends when run returns: at Close, or when ctx ends.
	go func() {
		defer close(b.done)
		b.loopID.Store(goid.Get())
		close(ready)
		run(runCtx)
		if err := runCtx.Err(); err != nil {
			b.Stopped(context.Cause(runCtx)) // Start's ctx, unless Close
		}
	}()
	<-ready
	return nil
}

// Closing marks the recipe closed and ends run's ctx; it tells whether
// it had been started.
func (b *Background) Closing() (started bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	if b.cancel != nil {
		b.cancel(zkrecipes.ErrClosed)
	}
	return b.started
}

// Started tells whether Start has started the recipe (it may have
// stopped since).
func (b *Background) Started() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.started
}

// Close is Closing, then the wait for run to return, unless ctx ends
// first or Close is called on run's own goroutine.
func (b *Background) Close(ctx context.Context) error {
	if !b.Closing() || goid.Get() == b.loopID.Load() {
		return nil
	}
	select {
	case <-b.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: close: %w", b.what, ctx.Err())
	}
}

// Closed tells whether Close was called.
func (b *Background) Closed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// Await waits for reached, the end of the recipe, or ctx: nil once
// reached, why the recipe stopped (ErrClosed after Close), or ctx's
// error.
func (b *Background) Await(ctx context.Context, reached <-chan struct{}, what string) error {
	select {
	case <-reached:
		return nil
	default:
	}
	b.mu.Lock()
	unstartedAndClosed := b.closed && !b.started
	b.mu.Unlock()
	if unstartedAndClosed {
		return fmt.Errorf("%s: %w", b.what, zkrecipes.ErrClosed)
	}
	select {
	case <-reached:
		return nil
	case <-b.done:
		if err := b.Err(); err != nil {
			return fmt.Errorf("%s: %w", b.what, err)
		}
		return fmt.Errorf("%s: %w", b.what, zkrecipes.ErrClosed)
	case <-ctx.Done():
		return fmt.Errorf("%s: %s: %w", b.what, what, ctx.Err())
	}
}

// Done returns a channel closed once run has returned.
func (b *Background) Done() <-chan struct{} { return b.done }

// Err returns why the recipe stopped on its own; nil while it runs and
// after Close.
func (b *Background) Err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// Stopped records why the recipe stopped, unless Close stopped it or a
// reason is recorded already.
func (b *Background) Stopped(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed && b.err == nil {
		b.err = err
	}
}

// Listeners is a recipe's list of listeners of events E: added and
// removed at any time, delivered one at a time by the recipe's goroutine.
type Listeners[E any] struct {
	mu   sync.Mutex
	list []*func(E)
}

// Add adds l and returns a function that removes it.
func (ls *Listeners[E]) Add(l func(E)) (remove func()) {
	p := &l
	ls.mu.Lock()
	ls.list = append(ls.list[:len(ls.list):len(ls.list)], p)
	ls.mu.Unlock()
	return func() {
		ls.mu.Lock()
		defer ls.mu.Unlock()
		for i, m := range ls.list {
			if m == p {
				ls.list = append(ls.list[:i:i], ls.list[i+1:]...)
				return
			}
		}
	}
}

// Emit calls every listener with ev, in the order they were added.
func (ls *Listeners[E]) Emit(ev E) {
	ls.mu.Lock()
	list := ls.list
	ls.mu.Unlock()
	for _, l := range list {
		(*l)(ev)
	}
}
