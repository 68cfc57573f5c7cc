package mutex

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// engine is the lock queue of one directory, Curator's LockInternals: it
// creates the caller's protected ephemeral-sequential node, lets a Driver
// judge the sorted children, and waits on the one node the Driver names.
// It keeps no state between calls, so any number of goroutines may wait
// through it at once without sharing a monitor.
type engine struct {
	client   *framework.Client
	dir      string
	lockName string
	driver   Driver
	data     []byte
}

// acquired is a node that holds the lock.
type acquired struct {
	node framework.Node
	// ownWatch is the watch on node set while waiting, or nil.
	ownWatch <-chan zk.Event
}

// acquire queues a node and waits until it holds the lock, ctx ends, or,
// with once, after the first look. A node that does not end up holding the
// lock is deleted.
func (e *engine) acquire(ctx context.Context, once bool) (acquired, error) {
	for {
		node, err := e.client.CreateProtected(ctx, zkpath.Join(e.dir, e.lockName), e.data,
			framework.EphemeralSequential, framework.WithParents())
		if err != nil {
			return acquired{}, err
		}
		a, err := e.wait(ctx, node, once)
		if err == nil {
			return a, nil
		}
		e.discard(node)
		if errors.Is(err, ErrNodeMissing) && ctx.Err() == nil {
			continue // deleted by someone, or its container reaped: queue again
		}
		return acquired{}, err
	}
}

// wait judges the queue until node holds the lock. Every call is bound to
// node's session: a node of a lost session is never taken as held.
func (e *engine) wait(ctx context.Context, node framework.Node, once bool) (acquired, error) {
	bound := framework.BindSession(ctx, node.Session)
	var w watchSet
	for {
		d, err := e.look(bound, node)
		switch {
		case err != nil:
			return acquired{}, waitError(err, node)
		case d.Held:
			return acquired{node: node, ownWatch: w.own}, nil
		case once:
			return acquired{}, ErrNotAcquired
		}
		gone, err := e.arm(bound, node, d, &w)
		if err != nil {
			return acquired{}, waitError(err, node)
		}
		if gone {
			continue // a node to watch had already gone: look again
		}
		held, err := e.sleep(ctx, node, d, &w)
		if err != nil {
			return acquired{}, waitError(err, node)
		}
		if held {
			return acquired{node: node, ownWatch: w.own}, nil
		}
	}
}

// look lists, sorts and judges the children.
func (e *engine) look(ctx context.Context, node framework.Node) (Decision, error) {
	children, _, err := e.client.Children(ctx, e.dir)
	if err != nil && !isNoNode(err) {
		return Decision{}, err
	}
	e.driver.Sort(children)
	return e.driver.Decide(children, node.Name)
}

// watched is one watched node and its pending watch.
type watched struct {
	name string
	ch   <-chan zk.Event
}

// watchSet is what a waiter watches: the node the Driver named, the one
// ahead of it, and, once the hand-off can come without a look, its own node.
type watchSet struct {
	watch, ahead watched
	own          <-chan zk.Event
}

// arm sets the watches a decision needs, keeping those still pending from
// an earlier look. It reports gone when a node to watch no longer exists.
func (e *engine) arm(ctx context.Context, node framework.Node, d Decision, w *watchSet) (gone bool, err error) {
	if d.HeldWhenGone && w.own == nil {
		// Our own node's watch tells the hand-off that we are still queued.
		if _, _, w.own, err = e.client.GetW(ctx, node.Path); err != nil {
			return false, err
		}
	}
	previous := []watched{w.watch, w.ahead}
	if w.watch, gone, err = e.watchNode(ctx, d.Watch, previous); err != nil || gone {
		return gone, err
	}
	w.ahead = watched{}
	if d.Ahead != "" {
		w.ahead, gone, err = e.watchNode(ctx, d.Ahead, previous)
	}
	return gone, err
}

// watchNode returns a watch on the child name, reusing a pending one.
// getData, not exists: a watch on a node that has just gone would wait for
// its re-creation, forever (Curator's CURATOR-107).
func (e *engine) watchNode(ctx context.Context, name string, pending []watched) (watched, bool, error) {
	for _, p := range pending {
		if p.name == name && p.ch != nil {
			return p, false, nil
		}
	}
	_, _, ch, err := e.client.GetW(ctx, zkpath.Join(e.dir, name))
	if isNoNode(err) {
		return watched{}, true, nil
	}
	return watched{name: name, ch: ch}, false, err
}

// sleep waits for a watched node to change. It reports held when the
// watched node was deleted and the Driver said that makes us the holder: no
// second look at the directory (DESIGN section 6).
func (e *engine) sleep(ctx context.Context, node framework.Node, d Decision, w *watchSet) (bool, error) {
	select {
	case ev := <-w.watch.ch:
		w.watch = watched{}
		return ev.Type == zk.EventNodeDeleted && d.HeldWhenGone && e.stillOurs(node, w.own), nil
	case <-w.ahead.ch:
		w.ahead = watched{} // look again while the watched node may hold
		return false, nil
	case ev := <-w.own:
		if ev.Type == zk.EventNodeDeleted {
			return false, fmt.Errorf("%w: %s was deleted", ErrNodeMissing, node.Path)
		}
		w.own = nil // data changed or watch dropped: set it again
		return false, nil
	case <-node.Session.Lost():
		return false, framework.ErrSessionChanged
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// stillOurs reports whether node is certainly still queued in the live
// session. Events arrive in order, so a deletion of our node before the
// watched one would already be waiting on ownWatch.
func (e *engine) stillOurs(node framework.Node, ownWatch <-chan zk.Event) bool {
	select {
	case <-ownWatch:
		return false // something happened to our node: look again
	default:
	}
	return e.client.Session() == node.Session && !node.Session.IsLost()
}

// discard deletes a node that will not hold the lock, with a context of its
// own (the caller's may have ended), and leaves it to the client to retry in
// the background if that fails.
func (e *engine) discard(node framework.Node) {
	ctx, cancel := context.WithTimeout(context.Background(), recipe.CleanupTimeout)
	defer cancel()
	_ = recipe.DeleteNode(ctx, e.client, node)
}

// waitError turns an error of the wait into what the caller sees: a lost
// session is ErrLost (the waiter fails fast), a missing node ErrNodeMissing.
func waitError(err error, node framework.Node) error {
	switch {
	case errors.Is(err, framework.ErrSessionChanged), errors.Is(err, zk.ErrSessionExpired), node.Session.IsLost():
		return fmt.Errorf("%w: session lost while waiting: %w", ErrLost, err)
	case isNoNode(err) && !errors.Is(err, ErrNodeMissing):
		return fmt.Errorf("%w: %w", ErrNodeMissing, err)
	}
	return err
}

func isNoNode(err error) bool { return errors.Is(err, zk.ErrNoNode) }
