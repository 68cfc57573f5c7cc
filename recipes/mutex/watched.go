package mutex

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/mutex/lockdriver"
)

// errWatchEnded: the directory watch ended while a waiter used it.
var errWatchEnded = errors.New("mutex: the directory watch ended")

// waitWatched is wait on ZooKeeper 3.6+, through the directory watch that
// sub was subscribed to before children were listed. It keeps the listing
// up to date from the watch's events, in the server's order, and lets the
// driver judge it again whenever a node the Decision names, or its own
// node, changes: no read at all between the create's listing and the
// hand-off. That is sound because every change after the listing arrives,
// and a change from before it only repeats what the listing shows (a node
// is created once and deleted once, in that order). After a reconnect,
// which the server says nothing of, it lists again.
func (e *engine) waitWatched(ctx context.Context, node framework.Node, children []string, once bool, sub *dirSub) (acquired, error) {
	bound := framework.BindSession(ctx, node.Session)
	for {
		if children == nil {
			look := sub.d.look() // the listing may make the view exact
			var err error
			children, _, err = e.client.Children(bound, e.dir)
			look.listed(children)
			if err != nil && !recipe.IsNoNode(err) {
				return acquired{}, recipe.WaitError(err, node.Session, ErrNodeMissing)
			}
		}
		d, err := e.driver.Decide(slices.Clone(children), node.Name, e.lockName)
		switch {
		case err != nil:
			return acquired{}, recipe.WaitError(err, node.Session, ErrNodeMissing)
		case d.Held && e.client.Session() == node.Session && !node.Session.IsLost():
			return acquired{node: node, sub: sub}, nil
		case d.Held:
			return acquired{}, recipe.WaitError(framework.ErrSessionChanged, node.Session, ErrNodeMissing)
		case once:
			return acquired{}, ErrNotAcquired
		case len(d.Watch) == 0 || len(d.Watch) > lockdriver.MaxWatch:
			return acquired{}, fmt.Errorf("mutex: the driver named %d nodes to watch, not 1 to %d", len(d.Watch), lockdriver.MaxWatch)
		}
		if children, err = e.follow(ctx, node, children, d, sub); err != nil {
			return acquired{}, recipe.WaitError(err, node.Session, ErrNodeMissing)
		}
	}
}

// follow applies the directory's events to children until one concerns a
// node d names (then the driver judges again) or a reconnect leaves the
// listing stale (children is nil: list again).
func (e *engine) follow(ctx context.Context, node framework.Node, children []string, d lockdriver.Decision, sub *dirSub) ([]string, error) {
	sub.waitFor(append(slices.Clip(d.Watch), node.Name))
	for {
		select {
		case <-sub.wake:
		case <-node.Session.Lost():
			return nil, framework.ErrSessionChanged
		case <-ctx.Done():
			return nil, recipe.SeenHeld(ctx)
		}
		events, ended := sub.take()
		judge := false
		for _, ev := range events {
			switch ev.Type {
			case framework.WatchResumed, framework.WatchSessionChanged:
				children, judge = nil, true
				continue
			case framework.NodeCreated, framework.NodeDeleted:
			default:
				continue // a data change is no one's turn
			}
			if path.Dir(ev.Path) != e.dir {
				continue // a node further down, not in the queue
			}
			name := path.Base(ev.Path)
			if name == node.Name && ev.Type == framework.NodeDeleted {
				return nil, fmt.Errorf("%w: %s was deleted", ErrNodeMissing, node.Path)
			}
			if children != nil {
				children = apply(children, name, ev.Type)
			}
			judge = judge || slices.Contains(d.Watch, name)
		}
		switch {
		case ended:
			return nil, errWatchEnded
		case judge:
			return children, nil
		}
	}
}

// apply records a child's creation or deletion in children.
func apply(children []string, name string, typ framework.WatchEventType) []string {
	i := slices.Index(children, name)
	switch {
	case typ == framework.NodeCreated && i < 0:
		return append(children, name)
	case typ == framework.NodeDeleted && i >= 0:
		return slices.Delete(children, i, i+1)
	}
	return children
}
