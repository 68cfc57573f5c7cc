package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Remove deletes the items put under id that no consumer has taken, and
// returns how many it deleted (Curator's DistributedIdQueue.remove). With a
// lock path it takes each item's lock first, so an item a consumer holds is
// left to it. The id is compared as Put writes it, '/' and '|' replaced by
// '_' (Curator compares the id as given, so such an id never matches
// there). A delete whose answer was lost is found out by its lock node
// with a lock path; without one, the error wraps ErrOutcomeUnknown and the
// count leaves that item out. When ctx ends, the item under way is
// finished (its lock and delete are never left half done) and no other is
// begun: the count is of those removed, and the error wraps ctx's.
func (q *IDQueue[T]) Remove(ctx context.Context, id string) (int, error) {
	if _, err := q.idName(id); err != nil {
		return 0, err
	}
	want := fixID(id)
	names, _, err := q.c.client.Children(ctx, q.c.path)
	if recipe.IsNoNode(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("%s: remove %q: %w", q.c.what, id, err)
	}
	n := 0
	var errs []error
	for _, name := range names {
		if got, _ := idOf(name); !isItem(name) || got != want {
			continue
		}
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		removed, err := q.c.remove(ctx, name)
		if err != nil {
			errs = append(errs, err)
		}
		if removed {
			n++
		}
	}
	if len(errs) > 0 {
		return n, fmt.Errorf("%s: remove %q: %w", q.c.what, id, errors.Join(errs...))
	}
	return n, nil
}

// remove deletes one item unless a consumer has it, and reports whether
// it did.
func (c *core) remove(ctx context.Context, name string) (bool, error) {
	if c.opts.lockPath == "" {
		err := c.client.Delete(ctx, c.itemPath(name), -1)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, ErrOutcomeUnknown):
			return false, err
		case recipe.IsNoNode(err):
			return false, nil
		}
		return false, err
	}
	work := context.WithoutCancel(ctx)
	l, _ := c.lock(work, name)
	if l == nil {
		return false, nil // held, gone or failed: not ours to remove
	}
	defer l.done()
	r := c.commit(work, l, []framework.Op{framework.DeleteOp(c.itemPath(name), -1), framework.DeleteOp(l.path, -1)}, nil)
	if r.err == nil {
		return true, nil
	}
	c.unlock(work, l)
	if r.gone {
		return false, nil
	}
	return false, r.err
}
