package mutex

import (
	"context"
	"path"
	"slices"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// dirWatch is the one persistent recursive watch (ZooKeeper 3.6's addWatch)
// that a client keeps on a lock's directory for the waiters and holds of
// every Mutex of that path (a read/write lock has two). The server sends
// one notification per event and connection however many goroutines of
// the process wait, so the watch is shared and counted by its
// subscribers. It outlives the last of them by idleLinger, unless that
// one left a long queue (dirSub.leave): a client that releases the lock
// and queues again at once (the common loop) finds it set, and its view
// of the queue (dirView) up to date, so that queueing costs the create
// alone.
type dirWatch struct {
	client *framework.Client
	dir    string
	linger time.Duration // idleLinger, unless a test sets another

	open sync.Mutex // orders setting and closing the watch
	mu   sync.Mutex // guards the fields below
	w    *framework.Watch
	subs map[*dirSub]struct{}
	view dirView
	idle *time.Timer // closes the watch linger after the last subscriber left
	// left: the last subscriber left a long queue (dirSub.leave), so the
	// server's watch goes without the client's linger too.
	left bool

	// fanned is deliver's list of subscribers, kept between events:
	// deliver's calls come one at a time.
	fanned []*dirSub
}

// idleLinger is how long the watch outlives its last subscriber.
const idleLinger = time.Second

// dirWatchKey names the dirWatch of a directory among the values a client
// shares between recipes (framework.Hooks.Shared).
type dirWatchKey struct{ dir string }

func newDirWatch(client *framework.Client, dir string) *dirWatch {
	return &dirWatch{client: client, dir: dir, linger: idleLinger}
}

// subscribe returns a subscription to the directory's events, setting the
// server's watch if none is set. An old server fails it with an error
// wrapping framework.ErrUnimplemented, sending nothing.
//
// The addWatch is not cancelled with ctx: an answer that came after ctx
// ended would leave the watch set with no one to remove it. A caller that
// leaves drops its subscription when the answer comes, and the linger
// removes the watch.
func (d *dirWatch) subscribe(ctx context.Context) (*dirSub, error) {
	if s := d.join(); s != nil {
		return s, nil
	}
	type result struct {
		s   *dirSub
		err error
	}
	answer := make(chan result, 1)
	// Ends with the addWatch's answer: the client's retry policy bounds it.
	go func() {
		s, err := d.set(context.WithoutCancel(ctx))
		answer <- result{s, err}
	}()
	select {
	case r := <-answer:
		return r.s, r.err
	case <-ctx.Done():
		// Ends with the answer, as above.
		go func() { (<-answer).s.release() }()
		return nil, ctx.Err()
	}
}

// set subscribes, setting the server's watch unless another caller has
// set it meanwhile.
func (d *dirWatch) set(ctx context.Context) (*dirSub, error) {
	d.open.Lock()
	defer d.open.Unlock()
	if s := d.join(); s != nil {
		return s, nil
	}
	d.mu.Lock()
	epoch := d.view.epoch
	d.mu.Unlock()
	// The events come on the client's receiving goroutine, not through a
	// channel and a goroutine of ours: with N clients queued, each
	// acquisition brings each of them two events, and the view must have
	// them before the replies that follow them.
	w, err := d.client.Hooks().WatchFunc(ctx, d.dir, framework.WatchRecursive, d.deliver, func(error) { d.ended() })
	if err != nil {
		d.forgetUnset()
		return nil, err
	}
	d.mu.Lock()
	if d.subs == nil {
		d.subs = make(map[*dirSub]struct{})
	}
	d.w = w
	// The server has the watch on the connection that answered; unless a
	// new connection has come since, whose restore is not answered yet.
	d.view.armed(epoch)
	d.mu.Unlock()
	if w.Err() != nil {
		d.ended() // before it was ours: ended found no watch to end
	}
	return d.join(), nil
}

// forgetUnset drops d from the client if it has no watch, as on a server
// without addWatch: else every path a waiter waited on there would keep
// one. A caller that has d still may set its watch; d is then its alone.
func (d *dirWatch) forgetUnset() {
	d.mu.Lock()
	unset := d.w == nil
	d.mu.Unlock()
	if unset {
		d.client.Hooks().Forget(dirWatchKey{d.dir}, d)
	}
}

// join returns a subscription if the watch is set already, else nil.
func (d *dirWatch) join() *dirSub {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.w == nil {
		return nil
	}
	s := &dirSub{d: d, wake: make(chan struct{}, 1)}
	d.subs[s] = struct{}{}
	return s
}

// deliver keeps the view and hands an event to every subscriber's queue.
// It runs on the client's receiving goroutine and never blocks.
func (d *dirWatch) deliver(ev framework.WatchEvent) {
	d.mu.Lock()
	d.view.apply(d.dir, ev)
	d.fanned = d.fanned[:0]
	if ev.Type != framework.WatchInterrupted { // the view's alone: WatchResumed follows
		for s := range d.subs {
			d.fanned = append(d.fanned, s)
		}
	}
	d.mu.Unlock()
	// Not under d.mu: a hold's recheck takes the hold's lock, under
	// which the hold's end releases its subscription.
	for _, s := range d.fanned {
		s.push(ev)
	}
}

// ended tells the subscribers that the watch has ended (the client was
// closed, or a server downgraded); after the first call it does nothing
// until a watch is set again. Close does not call it: closeIdle has left
// no one to tell.
func (d *dirWatch) ended() {
	d.mu.Lock()
	if d.w == nil || d.w.Err() == nil {
		d.mu.Unlock()
		return
	}
	d.w = nil
	d.view.drop()
	subs := make([]*dirSub, 0, len(d.subs))
	for s := range d.subs {
		subs = append(subs, s)
	}
	d.mu.Unlock()
	for _, s := range subs {
		s.end()
	}
}

// unsubscribe drops s; the last subscriber's going closes the watch, after
// the linger unless atOnce.
func (d *dirWatch) unsubscribe(s *dirSub, atOnce bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.subs, s)
	if len(d.subs) > 0 || d.w == nil {
		return
	}
	linger := d.linger
	if atOnce {
		linger = 0
	}
	d.left = atOnce
	if d.idle == nil {
		d.idle = time.AfterFunc(linger, d.closeIdle) // not on the caller's goroutine: a set under way holds d.open
	} else {
		d.idle.Reset(linger)
	}
}

// closeIdle closes the watch if no one has subscribed meanwhile.
func (d *dirWatch) closeIdle() {
	d.open.Lock()
	defer d.open.Unlock()
	d.mu.Lock()
	w := d.w
	if len(d.subs) > 0 || w == nil {
		d.mu.Unlock()
		return
	}
	d.w = nil
	d.view.drop()
	left := d.left
	d.mu.Unlock()
	if left {
		// Lingering, the server's watch would tell the client of every
		// change of the long queue for a second more.
		_ = d.client.Hooks().CloseWatchAtOnce(context.Background(), w)
	} else {
		_ = w.Close(context.Background()) // sends nothing: the client removes the server's watch after a linger
	}
	// Idle: the next Mutex of the path makes a new one. A Mutex that has
	// this one still may set its watch again, alone.
	d.client.Hooks().Forget(dirWatchKey{d.dir}, d)
}

// viewLook is a waiter's look at the queue, begun before its create or
// listing: the view's epoch if the view is exact (then the create need not
// list), else the listing under way that may make it exact. The zero
// viewLook, of a waiter without the watch, does nothing.
type viewLook struct {
	d       *dirWatch
	epoch   uint64
	exact   bool
	listing *viewListing
}

// look begins a look at the queue, by a waiter that has subscribed.
func (d *dirWatch) look() viewLook {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.view.exact() {
		return viewLook{d: d, epoch: d.view.epoch, exact: true}
	}
	return viewLook{d: d, listing: d.view.begin()}
}

// fromView returns the queue as the view has it, if the view has been
// exact since l began (an epoch ends whenever it stops being so) and has
// node (the create's event comes before its answer); else nil.
func (l viewLook) fromView(node string) []string {
	if !l.exact {
		return nil
	}
	l.d.mu.Lock()
	defer l.d.mu.Unlock()
	if l.d.view.epoch != l.epoch {
		return nil
	}
	return l.d.view.list(node)
}

// listed ends l's listing with its result (nil: none).
func (l viewLook) listed(children []string) {
	if l.listing == nil {
		return
	}
	l.d.mu.Lock()
	defer l.d.mu.Unlock()
	l.d.view.end(l.listing, children)
}

// dirSub is one subscriber of a dirWatch: a waiter, which reads its events
// from a queue of its own (unbounded, so the fan-out never waits), then,
// handed to a hold, only a callback for what a hold must look again after.
type dirSub struct {
	d    *dirWatch
	wake chan struct{} // has room for one wake-up

	mu      sync.Mutex
	queue   []framework.WatchEvent
	ended   bool   // the watch ended: fall back to one-shot watches
	recheck func() // the hold's, once handed
	done    bool
	// turn names the nodes whose deletion may be the waiter's turn, its
	// own among them (see wakes); nil: any deletion.
	turn []string
}

// push queues ev, or for a hold, calls recheck on a reconnect: the
// server tells nothing of what changed while the client was away.
func (s *dirSub) push(ev framework.WatchEvent) {
	s.mu.Lock()
	if f := s.recheck; f != nil {
		s.mu.Unlock()
		if ev.Type == framework.WatchResumed || ev.Type == framework.WatchSessionChanged {
			f()
		}
		return
	}
	s.queue = append(s.queue, ev)
	wake := s.wakes(ev) || len(s.queue) >= quietEvents
	s.mu.Unlock()
	if wake {
		s.signal()
	}
}

// wakes reports whether ev may be the waiter's turn, under s.mu. A
// waiter's turn comes with a reconnect, or with the deletion of a node
// it waits on or of its own: a creation comes after its own node's (a
// sequence number is never given twice), a data change is no one's turn,
// and the engine judges again only when a node its Decision names goes
// (follow). Behind a queue of n, every deletion would otherwise wake the
// n waiters of the client, of which one or two judge again.
func (s *dirSub) wakes(ev framework.WatchEvent) bool {
	switch ev.Type {
	case framework.NodeCreated, framework.NodeDataChanged:
		return false
	case framework.NodeDeleted:
		return s.turn == nil || slices.Contains(s.turn, path.Base(ev.Path))
	}
	return true
}

// waitFor names the nodes whose deletion wakes the waiter from now on
// (see wakes), and wakes it at once if an event queued since its last
// take does: it came before the names were known.
func (s *dirSub) waitFor(turn []string) {
	s.mu.Lock()
	s.turn = turn
	wake := slices.ContainsFunc(s.queue, s.wakes)
	s.mu.Unlock()
	if wake {
		s.signal()
	}
}

// quietEvents bounds the events that queue without waking the waiter
// (see wakes); its next wake-up applies them.
const quietEvents = 64

// end tells s that the watch has ended.
func (s *dirSub) end() {
	s.mu.Lock()
	s.ended = true
	f := s.recheck
	s.mu.Unlock()
	if f != nil {
		f() // the hold sets a one-shot watch of its own
	}
	s.signal()
}

func (s *dirSub) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// take returns the queued events, and whether the watch has ended.
func (s *dirSub) take() ([]framework.WatchEvent, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queue
	s.queue = nil
	return q, s.ended
}

// hand turns s over to the hold of node: from now on recheck is called
// instead of queueing. Anything already queued about node, or a
// reconnect, calls it at once, since the hold began after it.
func (s *dirSub) hand(node string, recheck func()) {
	s.mu.Lock()
	s.recheck = recheck
	q, ended := s.queue, s.ended
	s.queue = nil
	s.mu.Unlock()
	if ended || slices.ContainsFunc(q, func(ev framework.WatchEvent) bool {
		return ev.Path == node || ev.Type == framework.WatchResumed || ev.Type == framework.WatchSessionChanged
	}) {
		recheck()
	}
}

// release ends the subscription; later calls, and calls on nil, do
// nothing. The watch outlives its last subscriber by the linger.
func (s *dirSub) release() { s.unsubscribe(false) }

// leave ends the subscription of a waiter that found the queue long
// (engine.watchedQueue): if it was the last, the watch goes at once, and
// so does the server's, which the client would otherwise keep for a
// second (framework.Hooks.CloseWatchAtOnce). Lingering, it would be
// joined again whenever the client queued within the linger, and every
// create and delete of the long queue would keep coming to the client
// for as long as it kept queueing.
func (s *dirSub) leave() { s.unsubscribe(true) }

// unsubscribe ends the subscription, once, and does nothing on nil.
func (s *dirSub) unsubscribe(atOnce bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	done := s.done
	s.done = true
	s.mu.Unlock()
	if !done {
		s.d.unsubscribe(s, atOnce)
	}
}
