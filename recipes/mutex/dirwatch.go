package mutex

import (
	"context"
	"slices"
	"sync"

	"github.com/zkrecipes/zkrecipes/framework"
)

// dirWatch is the one persistent recursive watch (ZooKeeper 3.6's addWatch)
// that a Mutex keeps on its directory for all its waiters and holds. The
// server sends one notification per event and connection however many
// goroutines of the process wait, so the watch is shared, counted by its
// subscribers, and closed as the last goes. The client keeps the server's
// watch a second longer: a client that releases the lock and queues again
// at once (the common loop) sets it again without a request.
type dirWatch struct {
	client *framework.Client
	dir    string

	open sync.Mutex // orders setting and closing the watch
	mu   sync.Mutex // guards the fields below
	w    *framework.Watch
	subs map[*dirSub]struct{}
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
	w, err := d.client.Watch(ctx, d.dir, framework.WatchRecursive)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	if d.subs == nil {
		d.subs = make(map[*dirSub]struct{})
	}
	d.w = w
	d.mu.Unlock()
	// Ends when the watch's Events closes: at its removal or end.
	go d.fanOut(w)
	return d.join(), nil
}

// joinFree returns a subscription if it costs no request: the watch is
// set already, or the client has the server's watch of the directory (a
// Mutex's before this one, closed a moment ago). Else nil.
func (d *dirWatch) joinFree(ctx context.Context) *dirSub {
	if s := d.join(); s != nil || !d.client.Watching(d.dir, framework.WatchRecursive) {
		return s
	}
	s, err := d.set(ctx)
	if err != nil {
		return nil
	}
	return s
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

// fanOut hands every event of w to every subscriber's queue, and tells
// them when w ends. It never blocks on a subscriber.
func (d *dirWatch) fanOut(w *framework.Watch) {
	for ev := range w.Events() {
		for _, s := range d.subscribers(w) {
			s.push(ev)
		}
	}
	d.mu.Lock()
	ours := d.w == w // else removed by closeIdle, with no one left to tell
	if ours {
		d.w = nil // ended by the client: closed, or a downgraded server
	}
	d.mu.Unlock()
	if !ours {
		return
	}
	for _, s := range d.subscribers(nil) {
		s.end()
	}
}

// subscribers returns the current subscribers, or none if the current
// watch is no longer w (w == nil: whatever the watch).
func (d *dirWatch) subscribers(w *framework.Watch) []*dirSub {
	d.mu.Lock()
	defer d.mu.Unlock()
	if w != nil && d.w != w {
		return nil
	}
	subs := make([]*dirSub, 0, len(d.subs))
	for s := range d.subs {
		subs = append(subs, s)
	}
	return subs
}

// unsubscribe drops s; the last subscriber's going closes the watch.
func (d *dirWatch) unsubscribe(s *dirSub) {
	d.mu.Lock()
	delete(d.subs, s)
	last := len(d.subs) == 0 && d.w != nil
	d.mu.Unlock()
	if last {
		go d.closeIdle() // not on the caller's goroutine: a set under way holds d.open
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
	d.mu.Unlock()
	_ = w.Close(context.Background()) // sends nothing: the client removes the server's watch after a linger
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
	s.mu.Unlock()
	s.signal()
}

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
// nothing.
func (s *dirSub) release() {
	if s == nil {
		return
	}
	s.mu.Lock()
	done := s.done
	s.done = true
	s.mu.Unlock()
	if !done {
		s.d.unsubscribe(s)
	}
}
