package mutex

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/mutex/lockdriver"
)

// engine is the lock queue of one directory, Curator's LockInternals: it
// creates the caller's protected ephemeral-sequential node, lets a
// lockdriver.Driver judge the children, and waits on the few nodes the
// Driver names.
// It keeps no state between calls, so any number of goroutines may wait
// through it at once without sharing a monitor.
type engine struct {
	client   *framework.Client
	dir      string
	lockName string
	driver   lockdriver.Driver
	data     []byte
	place    lockdriver.Place // or nil
	// prefix is dir/lockName, the path every node is created under.
	prefix string
	// watchOwn: a waiter on one-shot watches watches its own node too
	// (not with WithOrderOnly).
	watchOwn bool
	// watchedQueue is the longest queue a waiter follows through the
	// directory watch: shortQueue, unless WithWatchedQueue.
	watchedQueue int32
}

// shortQueue is the longest queue (the children the create's listing or
// the watch's view showed) that a waiter follows through the directory
// watch, unless WithWatchedQueue says otherwise; behind a longer one it
// waits on one-shot watches of the nodes in front, as on an old server.
// The directory watch saves five requests of seven per contended
// acquisition, but tells every connection that has it of every create
// and delete: with N waiting clients, about 2N notifications per
// acquisition against 3. Measured with the directory
// watch always used (TestContention_FanOut through its proxy, with the
// view, acquisitions per second, directory watch against one-shot): 8
// waiters 599/627, 12: 722/726, 16: 648/901, 24: 617/963; before the
// view, 32: 278/781, 64: 220/723, 256: 74/552. Up to 12 the two cost
// about the same on two cores that run clients and server alike (without
// the proxy, at 8, the directory watch a little ahead); beyond, the
// fan-out costs more than the requests it saves.
const shortQueue = 8

// acquired is a node that holds the lock.
type acquired struct {
	node framework.Node
	// ownWatch is the watch on node set while waiting, or nil.
	ownWatch <-chan zk.Event
	// sub is the directory watch's subscription that tells of node's
	// events, or nil: the hold releases it.
	sub *dirSub
}

// acquire queues a node and waits until it holds the lock, ctx ends, or,
// with once, after the first look. A node that does not end up holding the
// lock is deleted.
func (e *engine) acquire(ctx context.Context, once bool) (acquired, error) {
	if e.place != nil {
		switch at, ok, err := e.place(ctx); {
		case err != nil:
			return acquired{}, err
		case ok:
			return e.takePlace(ctx, at)
		}
	}
	// A waiter follows the queue through the directory's persistent watch
	// when the server has them (see waitWatched). Joined before the create,
	// whose round trip lists the queue unless the watch's view has it (see
	// queue), the watch tells of every change after that listing or view;
	// it is joined only if that costs no request, so that a free lock
	// costs no request and no round trip more.
	sub := e.joinDirWatch()
	start := time.Now()
	for requeue := 0; ; requeue++ {
		node, children, err := e.queue(ctx, sub)
		if err != nil {
			sub.release()
			return acquired{}, err
		}
		if sub, children, err = e.followQueue(ctx, node, children, once, sub); err != nil {
			e.discard(ctx, node)
			return acquired{}, err
		}
		a, err := e.waitTurn(ctx, node, children, once, sub)
		if err == nil {
			return a, nil
		}
		e.discard(ctx, node)
		if errors.Is(err, errWatchEnded) {
			// The directory watch ended under us (a downgraded server):
			// queue again on one-shot watches.
			sub.release()
			sub = nil
			if err := e.client.Hooks().RetryWait(ctx, requeue, start); err != nil {
				return acquired{}, err
			}
			continue
		}
		// Deleted by someone, or its container reaped: queue again, as
		// Curator does, as often as the client's retry policy allows.
		if errors.Is(err, ErrNodeMissing) && e.client.Hooks().RetryWait(ctx, requeue, start) == nil {
			continue
		}
		sub.release()
		return acquired{}, err
	}
}

// waitTurn waits until node holds the lock, on the directory watch when
// sub has it, else on one-shot watches.
func (e *engine) waitTurn(ctx context.Context, node framework.Node, children []string, once bool, sub *dirSub) (acquired, error) {
	if sub != nil {
		return e.waitWatched(ctx, node, children, once, sub)
	}
	return e.wait(ctx, node, children, once)
}

// followQueue decides how a waiter queued at node follows the queue: a
// long queue on one-shot watches, a contended short one on the directory
// watch, subscribed now if it was not joined before the create; the
// waiter then lists again (children nil). A server without persistent
// watches leaves it on one-shot watches.
func (e *engine) followQueue(ctx context.Context, node framework.Node, children []string, once bool, sub *dirSub) (*dirSub, []string, error) {
	switch {
	case len(children) > int(e.watchedQueue):
		sub.leave()
		return nil, children, nil
	case once || sub != nil || !e.contended(node, children):
		return sub, children, nil
	}
	switch sub, err := e.dirWatch().subscribe(ctx); {
	case err == nil:
		return sub, nil, nil
	case errors.Is(err, framework.ErrUnimplemented):
		return nil, children, nil
	default:
		return nil, children, err
	}
}

// queue creates the caller's node and returns the queue it is in: from
// the directory watch's view if sub has one exact, else listed in the
// create's round trip when it can be; nil if neither.
func (e *engine) queue(ctx context.Context, sub *dirSub) (framework.Node, []string, error) {
	var look viewLook
	if sub != nil {
		look = sub.d.look()
	}
	if look.exact {
		node, err := e.client.CreateProtected(ctx, e.prefix, e.data, framework.EphemeralSequential, framework.WithParents())
		if err != nil {
			return framework.Node{}, nil, err
		}
		return node, look.fromView(node.Name), nil
	}
	node, children, err := e.client.Hooks().CreateProtectedAndList(ctx, e.prefix, e.data, framework.EphemeralSequential, framework.WithParents())
	look.listed(children)
	return node, children, err
}

// dirWatch returns the directory watch that every Mutex of the client on
// the directory shares, made if the client has none.
func (e *engine) dirWatch() *dirWatch {
	client, dir := e.client, e.dir
	return client.Hooks().Shared(dirWatchKey{dir}, func() any { return newDirWatch(client, dir) }).(*dirWatch)
}

// joinDirWatch subscribes to the directory watch if the client has it
// set, and otherwise returns nil. It makes no dirWatch: a lock that is
// never contended keeps nothing in the client, which matters to a process
// that locks many paths once each (ten thousand idle holds cost about
// 250 bytes fewer each).
func (e *engine) joinDirWatch() *dirSub {
	v, ok := e.client.Hooks().LoadShared(dirWatchKey{e.dir})
	if !ok {
		return nil
	}
	return v.(*dirWatch).join()
}

// contended reports whether node must wait, by children.
func (e *engine) contended(node framework.Node, children []string) bool {
	d, err := e.driver.Decide(slices.Clone(children), node.Name, e.lockName)
	return err == nil && !d.Held
}

// wait judges the queue until node holds the lock, first from children
// if not nil. Every call is bound to node's session: a node of a lost
// session is never taken as held.
func (e *engine) wait(ctx context.Context, node framework.Node, children []string, once bool) (acquired, error) {
	var bound context.Context // made at the first server call: a free lock needs none
	bind := func() context.Context {
		if bound == nil {
			bound = framework.BindSession(ctx, node.Session)
		}
		return bound
	}
	var w watchSet
	for {
		d, err := e.judge(bind, node, children)
		children = nil
		switch {
		case err != nil:
			return acquired{}, recipe.WaitError(err, node.Session, ErrNodeMissing)
		case d.Held:
			return acquired{node: node, ownWatch: w.own}, nil
		case once:
			return acquired{}, ErrNotAcquired
		case len(d.Watch) == 0 || len(d.Watch) > lockdriver.MaxWatch:
			return acquired{}, fmt.Errorf("mutex: the driver named %d nodes to watch, not 1 to %d", len(d.Watch), lockdriver.MaxWatch)
		}
		next, err := e.arm(bind(), node, d, &w)
		for next == keepWaiting && err == nil {
			next, err = e.sleep(ctx, node, d, &w)
		}
		if err != nil {
			return acquired{}, recipe.WaitError(err, node.Session, ErrNodeMissing)
		}
		if next == holds {
			return acquired{node: node, ownWatch: w.own}, nil
		}
	}
}

// judge lets the driver judge the children, listing them first (under the
// context ctx returns) unless given. It does not sort them: the driver sorts no more than the nodes in
// front of ours.
func (e *engine) judge(ctx func() context.Context, node framework.Node, children []string) (lockdriver.Decision, error) {
	if children == nil {
		var err error
		if children, _, err = e.client.Children(ctx(), e.dir); err != nil && !recipe.IsNoNode(err) {
			return lockdriver.Decision{}, err
		}
	}
	return e.driver.Decide(children, node.Name, e.lockName)
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
// have not gone yet, and its own node, from the first wait on (unless
// WithOrderOnly).
type watchSet struct {
	nodes [lockdriver.MaxWatch]watched
	own   <-chan zk.Event
}

// arm sets the watches a decision needs, keeping those still pending from
// an earlier look, and says whether to wait, look again or hold (when
// HeldWhenGone and every node in the way has gone already). It sends the
// requests together, so that arming costs one round trip however many
// watches it sets: behind a busy server, each round trip is a wait.
func (e *engine) arm(ctx context.Context, node framework.Node, d lockdriver.Decision, w *watchSet) (outcome, error) {
	previous := w.nodes
	w.nodes = [lockdriver.MaxWatch]watched{}
	var paths []string
	var fresh []int // indexes into d.Watch of the nodes in paths
	for i, name := range d.Watch {
		if j := slices.IndexFunc(previous[:], func(p watched) bool { return p.name == name }); j >= 0 {
			w.nodes[i], previous[j] = previous[j], watched{}
			continue
		}
		paths = append(paths, zkpath.Join(e.dir, name))
		fresh = append(fresh, i)
	}
	setOwn := w.own == nil && e.watchOwn
	if setOwn {
		// Our own node's watch tells the hand-off that we are still queued.
		// It is set at the first wait, so that the look that may precede a
		// hand-off is one request, not two.
		paths = append(paths, node.Path)
	}
	replies := e.getWatches(ctx, paths)
	if setOwn {
		own := replies[len(replies)-1]
		if own.err != nil {
			return lookAgain, own.err
		}
		w.own = own.ch
	}
	for k, i := range fresh {
		r := replies[k]
		switch {
		case recipe.IsNoNode(r.err) && !d.HeldWhenGone:
			return lookAgain, nil
		case recipe.IsNoNode(r.err):
			continue // gone already: one fewer to wait for
		case r.err != nil:
			return lookAgain, r.err
		}
		w.nodes[i] = watched{name: d.Watch[i], ch: r.ch}
	}
	if !d.HeldWhenGone {
		return keepWaiting, nil
	}
	return e.remaining(node, w), nil
}

// watchReply is the answer to one getData-with-watch.
type watchReply struct {
	ch  <-chan zk.Event
	err error
}

// getWatches sets a watch on each path with getData, not exists: a watch on
// a node that has just gone would wait for its re-creation, forever
// (Curator's CURATOR-107). The requests go out together.
func (e *engine) getWatches(ctx context.Context, paths []string) []watchReply {
	replies := make([]watchReply, len(paths))
	get := func(k int) { _, _, replies[k].ch, replies[k].err = e.client.GetW(ctx, paths[k]) }
	var wg sync.WaitGroup
	for k := 1; k < len(paths); k++ {
		wg.Go(func() { get(k) })
	}
	if len(paths) > 0 {
		get(0)
	}
	wg.Wait()
	return replies
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
func (e *engine) sleep(ctx context.Context, node framework.Node, d lockdriver.Decision, w *watchSet) (outcome, error) {
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
		return lookAgain, recipe.SeenHeld(ctx)
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

// discard deletes a node that will not hold the lock: see
// recipe.DiscardNode.
func (e *engine) discard(ctx context.Context, node framework.Node) {
	recipe.DiscardNode(ctx, e.client, node)
}
