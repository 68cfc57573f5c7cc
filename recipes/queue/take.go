package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// take takes the item named name in the consumer's mode. Its server calls
// do not end with ctx (only the function's wait does): an item's lock node
// and delete must not be left half done when the consumer stops; the
// client's retry policy bounds them.
func (cn *Consumer[T]) take(ctx context.Context, name string) outcome {
	if ctx.Err() != nil {
		// Closed before it began (its slot came free as Close ended ctx):
		// a closed consumer takes nothing more.
		return outcome{name: name, refusing: true}
	}
	if cn.heardGone(name) { // taken by another since the consumer chose it
		return outcome{name: name, gone: true}
	}
	switch {
	case cn.b.c.opts.lockPath != "":
		return cn.takeLocked(ctx, name)
	case cn.tx != nil:
		return cn.takeTx(ctx, name)
	}
	return cn.takeFirst(ctx, name)
}

// read reads an item node: its items, its version, or an outcome that
// ends the take (gone, malformed, failed).
func (cn *Consumer[T]) read(ctx context.Context, name string) (items []T, data []byte, version int32, end *outcome) {
	if cn.heardGone(name) {
		return nil, nil, 0, &outcome{name: name, gone: true}
	}
	data, stat, err := cn.b.c.client.Get(ctx, cn.b.c.itemPath(name))
	switch {
	case recipe.IsNoNode(err):
		return nil, nil, 0, &outcome{name: name, gone: true}
	case err != nil:
		cn.b.c.log().Warn("queue item not read", "node", cn.b.c.itemPath(name), "err", err)
		return nil, nil, 0, &outcome{name: name}
	}
	items, err = decode(cn.b.codec, data)
	if err != nil {
		return nil, nil, 0, &outcome{name: name, bad: err}
	}
	return items, data, stat.Version, nil
}

// heardGone reports whether the consumer's view no longer has the item
// name: then it is gone (a name is never given twice), or the view must
// be listed again, and either way the take ends without a request.
func (cn *Consumer[T]) heardGone(name string) bool {
	return cn.view != nil && !cn.view.has(name)
}

// takeFirst is Curator's default mode, at most once: the item is deleted,
// then its function called. A delete whose answer was lost may have been
// another consumer's: the item is then dropped, never handed out twice.
func (cn *Consumer[T]) takeFirst(ctx context.Context, name string) outcome {
	work := context.WithoutCancel(ctx)
	items, _, version, end := cn.read(work, name)
	if end != nil {
		return *end
	}
	if cn.heardGone(name) { // taken while it was read: the deletion came before the read's answer
		return outcome{name: name, gone: true}
	}
	if ctx.Err() != nil {
		// Stopped while it read: deleted now, the item would go to a
		// function whose ctx has ended, which drops it. Left for the next.
		return outcome{name: name, refusing: true}
	}
	err := cn.b.c.client.Delete(work, cn.b.c.itemPath(name), version)
	switch {
	case errors.Is(err, ErrOutcomeUnknown):
		// Ours or another consumer's delete: dropped, never handed out twice.
		cn.b.c.log().Warn("queue item dropped: its delete's answer was lost", "node", cn.b.c.itemPath(name), "err", err)
		return outcome{name: name, gone: true}
	case recipe.IsNoNode(err), errors.Is(err, zk.ErrBadVersion):
		return outcome{name: name, gone: true}
	case err != nil:
		cn.b.c.log().Warn("queue item not taken", "node", cn.b.c.itemPath(name), "err", err)
		return outcome{name: name}
	}
	for _, it := range items {
		if err := cn.fn(ctx, it); err != nil {
			cn.b.c.log().Warn("queue consumer failed; the item is gone", "node", cn.b.c.itemPath(name), "err", err)
		}
	}
	return outcome{name: name, took: true}
}

// consume runs the consumer's function on a node's items: for a
// transactional consumer it gathers their operations. The first error
// stops it.
func (cn *Consumer[T]) consume(ctx context.Context, items []T) ([]framework.Op, error) {
	var ops []framework.Op
	for _, it := range items {
		if cn.tx == nil {
			if err := cn.fn(ctx, it); err != nil {
				return nil, err
			}
			continue
		}
		more, err := cn.tx(ctx, it)
		if err != nil {
			return nil, err
		}
		ops = append(ops, more...)
	}
	return ops, nil
}

// giveBack returns the operations that end an item whose function failed,
// after the item's delete (and lock's): by the error mode, the item again
// at the end of the queue, or nothing.
func (cn *Consumer[T]) giveBack(name string, data []byte, cause error) []framework.Op {
	cn.b.c.log().Warn("queue consumer failed", "node", cn.b.c.itemPath(name), "mode", cn.opts.errorMode.String(), "err", cause)
	if cn.opts.errorMode == Delete {
		return nil
	}
	return []framework.Op{framework.CreateOp(cn.b.c.itemPath(requeueName(name)), data, framework.PersistentSequential)}
}

// takeTx is the transactional mode without a lock path: the function's
// operations run with the item's delete, so only one consumer's apply.
// A lost answer needs no look: sent again, the transaction either runs or
// fails at the delete, and either way the effect is applied once.
func (cn *Consumer[T]) takeTx(ctx context.Context, name string) outcome {
	work := context.WithoutCancel(ctx)
	items, data, version, end := cn.read(work, name)
	if end != nil {
		return *end
	}
	ops, err := cn.consume(ctx, items)
	if err != nil && ctx.Err() != nil {
		return outcome{name: name, refusing: true} // stopping: left as it was
	}
	head := []framework.Op{framework.DeleteOp(cn.b.c.itemPath(name), version)}
	if err != nil {
		ops = cn.giveBack(name, data, err)
	}
	for gaveBack := err != nil; ; gaveBack = true {
		r := cn.b.c.commit(work, nil, head, ops)
		switch {
		case r.err == nil:
			return outcome{name: name, took: true}
		case r.gone:
			return outcome{name: name, gone: true}
		case r.failedOp && !gaveBack:
			ops = cn.giveBack(name, data, r.err)
			continue
		}
		cn.b.c.log().Warn("queue item not taken", "node", cn.b.c.itemPath(name), "err", r.err)
		return outcome{name: name}
	}
}

// commitResult is what an item's closing transaction came to.
type commitResult struct {
	err      error
	gone     bool // the item was not there (or not at its version)
	failedOp bool // one of the caller's operations failed it
}

// commit runs an item's closing transaction: head (the item's delete,
// and the lock's with a lock) then ops. A lost answer is looked into by
// the lock node (see resolve); without a lock the transaction is sent
// again, which the item's delete keeps from running twice. ctx must not
// end with the consumer: the client's retry policy bounds the calls.
func (c *core) commit(ctx context.Context, l *itemLock, head, ops []framework.Op) commitResult {
	if l != nil {
		// In another session the lock may be another consumer's now.
		ctx = framework.BindSession(ctx, l.session)
	}
	tx := append(append([]framework.Op(nil), head...), ops...)
	lost, start := false, time.Now()
	for attempt := 0; ; attempt++ {
		_, err := c.client.Multi(ctx, tx...)
		var opErr *framework.MultiOpError
		switch {
		case err == nil:
			return commitResult{}
		case errors.As(err, &opErr) && opErr.Index == 0 && lost && l == nil:
			// A lost run of ours took it, or another consumer did:
			// either way its effect is applied once.
			c.log().Debug("queue item gone after a lost answer", "node", opErr.Path)
			return commitResult{}
		case errors.As(err, &opErr) && opErr.Index == 0:
			return commitResult{err: err, gone: true} // someone took it first
		case errors.As(err, &opErr) && opErr.Index < len(head):
			return commitResult{err: fmt.Errorf("%w: the item's lock node is gone: %w", zkrecipes.ErrLost, err)}
		case errors.As(err, &opErr):
			return commitResult{err: err, failedOp: true}
		case !errors.Is(err, ErrOutcomeUnknown):
			return commitResult{err: err}
		}
		lost = true
		if l != nil {
			applied, known, rerr := c.resolve(ctx, l)
			switch {
			case rerr != nil:
				return commitResult{err: fmt.Errorf("%w: %w", err, rerr)}
			case !known:
				return commitResult{err: err}
			case applied:
				return commitResult{}
			}
		}
		if werr := c.client.Hooks().RetryWait(ctx, attempt, start); werr != nil {
			return commitResult{err: fmt.Errorf("%w: then: %w", err, werr)}
		}
	}
}
