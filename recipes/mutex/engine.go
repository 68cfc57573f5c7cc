package mutex

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// engine is the lock queue of one directory, Curator's LockInternals: it
// creates the caller's protected ephemeral-sequential node, lets a Driver
// judge the children, and waits on the few nodes the Driver names.
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
		case len(d.Watch) == 0 || len(d.Watch) > MaxWatch:
			return acquired{}, fmt.Errorf("mutex: the driver named %d nodes to watch, not 1 to %d", len(d.Watch), MaxWatch)
		}
		next, err := e.arm(bound, node, d, &w)
		for next == keepWaiting && err == nil {
			next, err = e.sleep(ctx, node, d, &w)
		}
		if err != nil {
			return acquired{}, waitError(err, node)
		}
		if next == holds {
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

// outcome is what a waiter does after a watch is set or fires.
type outcome int

const (
	keepWaiting outcome = iota
	lookAgain
	holds
)

// watched is one watched node and its pending watch.
type watched struct {
	name string
	ch   <-chan zk.Event
}

// watchSet is what a waiter watches: the nodes its Decision names that
// have not gone yet, and its own node, from the first wait on.
type watchSet struct {
	nodes [MaxWatch]watched
	own   <-chan zk.Event
}

// arm sets the watches a decision needs, keeping those still pending from
// an earlier look, and says whether to wait, look again or hold (when
// HeldWhenGone and every node in the way has gone already).
func (e *engine) arm(ctx context.Context, node framework.Node, d Decision, w *watchSet) (outcome, error) {
	if w.own == nil {
		// Our own node's watch tells the hand-off that we are still queued.
		// It is set at the first wait, so that the look that may precede a
		// hand-off is one request, not two.
		var err error
		if _, _, w.own, err = e.client.GetW(ctx, node.Path); err != nil {
			return lookAgain, err
		}
	}
	previous := w.nodes
	w.nodes = [MaxWatch]watched{}
	for i, name := range d.Watch {
		if j := slices.IndexFunc(previous[:], func(p watched) bool { return p.name == name }); j >= 0 {
			w.nodes[i], previous[j] = previous[j], watched{}
			continue
		}
		// getData, not exists: a watch on a node that has just gone would
		// wait for its re-creation, forever (Curator's CURATOR-107).
		_, _, ch, err := e.client.GetW(ctx, zkpath.Join(e.dir, name))
		switch {
		case isNoNode(err) && !d.HeldWhenGone:
			return lookAgain, nil
		case isNoNode(err):
			continue // gone already: one fewer to wait for
		case err != nil:
			return lookAgain, err
		}
		w.nodes[i] = watched{name: name, ch: ch}
	}
	if !d.HeldWhenGone {
		return keepWaiting, nil
	}
	return e.remaining(node, w), nil
}

// remaining says what a waiter whose Decision has HeldWhenGone does: wait
// while a node in its way remains, hold once none does.
func (e *engine) remaining(node framework.Node, w *watchSet) outcome {
	switch {
	case w.count() > 0:
		return keepWaiting
	case e.stillOurs(node, w):
		return holds
	}
	return lookAgain
}

// count is the number of nodes still watched.
func (w *watchSet) count() int {
	n := 0
	for _, p := range w.nodes {
		if p.ch != nil {
			n++
		}
	}
	return n
}

// sleep waits for a watched node to change, and says what to do next. A
// deletion that the Decision said makes us the holder is taken as the
// hand-off, with no second look at the directory (DESIGN section 6).
func (e *engine) sleep(ctx context.Context, node framework.Node, d Decision, w *watchSet) (outcome, error) {
	var (
		slot int
		ev   zk.Event
	)
	// One case per slot of watchSet.nodes, MaxWatch of them.
	select {
	case ev = <-w.nodes[0].ch:
		slot = 0
	case ev = <-w.nodes[1].ch:
		slot = 1
	case ev = <-w.nodes[2].ch:
		slot = 2
	case ev := <-w.own:
		if ev.Type == zk.EventNodeDeleted {
			return lookAgain, fmt.Errorf("%w: %s was deleted", ErrNodeMissing, node.Path)
		}
		w.own = nil // data changed or watch dropped: set it again
		return lookAgain, nil
	case <-node.Session.Lost():
		return lookAgain, framework.ErrSessionChanged
	case <-ctx.Done():
		return lookAgain, ctx.Err()
	}
	w.nodes[slot] = watched{}
	if ev.Type != zk.EventNodeDeleted || !d.HeldWhenGone {
		return lookAgain, nil
	}
	return e.remaining(node, w), nil
}

// stillOurs reports whether node is certainly still queued in the live
// session. Events arrive in order, so a deletion of our node before the
// watched ones would already be waiting on its own watch.
func (e *engine) stillOurs(node framework.Node, w *watchSet) bool {
	select {
	case <-w.own:
		w.own = nil // something happened to our node: look again
		return false
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
