package queue

import (
	"context"
	"errors"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// follow takes items as the consumer's view of the queue (a recursive
// watch of its directory, ZooKeeper 3.6+) tells of them: it lists the
// directory only to begin, after a reconnect, and when the view left
// items out (viewCap), never once per change. It returns false when the
// server cannot keep the watch (older than 3.6, or a rolling downgrade
// ended it): the consumer then lists with one-shot watches. It returns
// true when ctx ends or the client is closed.
func (cn *Consumer[T]) follow(ctx context.Context) bool {
	v := newView(cn.b.c.path, cn.b.c.kind)
	w, err := cn.watchDir(ctx, v)
	if w == nil {
		return err == nil
	}
	defer func() { _ = w.Close(context.Background()) }()
	cn.view = v
	defer func() { cn.view = nil }()
	s := newStagger()
	cn.stag = s
	defer func() { cn.stag = nil }()
	for ctx.Err() == nil {
		ended, on, exact := v.state()
		switch {
		case ended && errors.Is(w.Err(), framework.ErrClosed):
			cn.failed(ctx, w.Err()) // the client was closed: the consumer stops
			return true
		case ended:
			cn.b.c.log().Info("queue watch ended; listing with one-shot watches", "path", cn.b.c.path, "err", w.Err())
			return false
		case !on: // a new connection: wait for the watch to be set again
			cn.idle(ctx, nil, v.wake, batchResult{})
			continue
		case !exact:
			if err := cn.fill(ctx, v); err != nil && !cn.failed(ctx, err) {
				return true
			}
			continue
		}
		cn.followOnce(ctx, v, s)
	}
	return true
}

// followOnce takes the items of the view that are this consumer's to take
// now (see stagger), or waits for more.
func (cn *Consumer[T]) followOnce(ctx context.Context, v *view, s *stagger) {
	items, due := cn.ready(v.items())
	s.heard(v.deletions())
	mine, wait := s.pick(items, cn.waitedFrom(v), time.Now())
	res := batchResult{due: due}
	if len(mine) > 0 {
		creates := v.creates()
		res = cn.batch(ctx, mine, due, func() bool { return v.creates() != creates })
		if res.took || !res.failed && res.held == "" {
			// Look again at once: more may have come, or the batch jumped
			// over items (deletions wake no one).
			return
		}
	}
	if wait > 0 && (res.due <= 0 || wait < res.due) {
		res.due = wait
	}
	cn.idle(ctx, nil, v.wake, res)
}

// waitedFrom returns when an item began to wait to be taken: when the
// view heard of it or, for a delay queue's, when it fell due, so that
// helpers do not all reach for an item of another's the moment it falls
// due.
func (cn *Consumer[T]) waitedFrom(v *view) func(string) time.Time {
	return func(name string) time.Time {
		at := v.heardAt(name)
		if cn.b.c.kind == delay {
			if due := time.UnixMilli(epochOf(name)); due.After(at) {
				return due
			}
		}
		return at
	}
}

// watchDir sets the recursive watch of the queue's directory, trying
// again after failures; nil and the error when it cannot be had (a server
// without it, or a connection the client cannot send it on), nil and nil
// when the consumer must stop.
func (cn *Consumer[T]) watchDir(ctx context.Context, v *view) (*framework.Watch, error) {
	for {
		epoch := v.current()
		w, err := cn.b.c.client.Hooks().WatchFunc(ctx, cn.b.c.path, framework.WatchRecursive, v.apply, v.end)
		switch {
		case err == nil:
			v.armed(epoch)
			if w.Err() != nil {
				v.end(w.Err()) // ended before WatchFunc returned
			}
			return w, nil
		case errors.Is(err, framework.ErrUnimplemented), errors.Is(err, framework.ErrCarrierMissing):
			return nil, err
		case !cn.failed(ctx, err):
			return nil, nil
		}
	}
}

// fill lists the queue's directory into the view, creating the
// directories if they are missing.
func (cn *Consumer[T]) fill(ctx context.Context, v *view) error {
	epoch := v.begin()
	names, _, err := cn.b.c.client.Children(ctx, cn.b.c.path)
	if recipe.IsNoNode(err) {
		return cn.b.c.ensureDirs(ctx) // and list again
	}
	if err != nil {
		return err
	}
	v.fill(epoch, names)
	return nil
}
