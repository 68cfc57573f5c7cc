package mutex

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// dirWatchLinger is how long the directory watch outlives its last
// subscriber. A client that releases the lock and queues again at once (the
// common loop) would otherwise pay an addWatch and a removeWatches per
// acquisition: five requests where three are the floor.
const dirWatchLinger = time.Second

// dirWatch is the one persistent recursive watch (ZooKeeper 3.6's addWatch)
// that a Mutex keeps on its directory for all its waiters and holds. The
// server sends one notification per event and connection however many
// goroutines of the process wait, so the watch is shared, counted by its
// subscribers, and removed dirWatchLinger after the last has gone.
type dirWatch struct {
	client *framework.Client
	dir    string

	open sync.Mutex // orders setting and removing the server's watch
	mu   sync.Mutex // guards the fields below
	w    *framework.Watch
	subs map[*dirSub]struct{}
	idle *time.Timer // removes w once no one subscribes
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

// join returns a subscription if the server's watch is set already (it
// costs nothing then), else nil.
func (d *dirWatch) join() *dirSub {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.w == nil {
		return nil
	}
	if d.idle != nil {
		d.idle.Stop() // if it fired already, closeIdle finds a subscriber
		d.idle = nil
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

// unsubscribe drops s; the last subscriber's going starts the linger, or
// with now, removes the watch at once.
func (d *dirWatch) unsubscribe(s *dirSub, now bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.subs, s)
	switch {
	case len(d.subs) > 0 || d.w == nil:
	case now:
		if d.idle != nil {
			d.idle.Stop()
		}
		d.idle = time.AfterFunc(0, d.closeIdle)
	case d.idle == nil:
		d.idle = time.AfterFunc(dirWatchLinger, d.closeIdle)
	}
}

// closeIdle removes the watch if no one has subscribed meanwhile.
func (d *dirWatch) closeIdle() {
	d.open.Lock()
	defer d.open.Unlock()
	d.mu.Lock()
	w := d.w
	if len(d.subs) > 0 || w == nil {
		d.mu.Unlock()
		return
	}
	d.w, d.idle = nil, nil
	d.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = w.Close(ctx) // a failed removal goes with the connection
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
func (s *dirSub) release() { s.drop(false) }

// abandon is release by a waiter gone back to one-shot watches: a last
// subscriber removes the watch at once, without the linger, since the next
// waiter of a long queue would keep it set, and told of every change, for
// nothing.
func (s *dirSub) abandon() { s.drop(true) }

func (s *dirSub) drop(now bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	done := s.done
	s.done = true
	s.mu.Unlock()
	if !done {
		s.d.unsubscribe(s, now)
	}
}
