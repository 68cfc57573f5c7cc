package leader

import (
	"context"
	"slices"
	"sync"

	"github.com/petermattis/goid"
)

// Listener is told when its latch becomes leader and when it stops being
// leader, as Curator's LeaderLatchListener. Its calls are made one at a
// time, on one goroutine at a time, in the order of the events: IsLeader
// and NotLeader strictly alternate, and NotLeader comes only after
// IsLeader. A call that blocks delays the later calls (of every listener
// of the latch) and, in Notify mode, the return of Close, which waits for
// the NotLeader it causes; never the latch's own work. A listener may
// call Close: that call does not wait for the listeners.
type Listener interface {
	// IsLeader is called when the latch has become leader.
	IsLeader()
	// NotLeader is called when the latch's term has ended, unless the
	// latch left silently (see CloseMode).
	NotLeader()
}

// ListenerFuncs is a Listener made of two functions; a nil one is skipped.
type ListenerFuncs struct {
	OnIsLeader  func()
	OnNotLeader func()
}

// IsLeader calls OnIsLeader.
func (f ListenerFuncs) IsLeader() {
	if f.OnIsLeader != nil {
		f.OnIsLeader()
	}
}

// NotLeader calls OnNotLeader.
func (f ListenerFuncs) NotLeader() {
	if f.OnNotLeader != nil {
		f.OnNotLeader()
	}
}

// notifier delivers a latch's events to its listeners in order, on one
// goroutine at a time, started when an event is posted to an idle
// notifier, so that a latch with no events costs no goroutine.
type notifier struct {
	mu      sync.Mutex // guards the fields below
	subs    []*subscriber
	queue   []event
	running bool // a delivery goroutine is under way
	leading bool // the last event posted
	// deliverer is the id of the delivery goroutine while it runs: a
	// listener's own call of flush must not wait on itself.
	deliverer int64
	idle      chan struct{} // made by flush; closed when delivery ends
}

// subscriber is one listener and what it was last told; told is read and
// written only by the delivery goroutine.
type subscriber struct {
	l       Listener
	told    bool
	removed bool // guarded by notifier.mu
}

// event is one change of leadership, for every subscriber or only one.
type event struct {
	leader bool
	only   *subscriber
}

// add subscribes l. A listener added while the latch leads is told
// IsLeader first, so that its NotLeader never comes alone.
func (n *notifier) add(l Listener) (remove func()) {
	s := &subscriber{l: l}
	n.mu.Lock()
	n.subs = append(n.subs, s)
	if n.leading {
		n.enqueueLocked(event{leader: true, only: s})
	}
	n.mu.Unlock()
	return func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		s.removed = true
		n.subs = slices.DeleteFunc(n.subs, func(x *subscriber) bool { return x == s })
	}
}

// post queues a change of leadership for every listener.
func (n *notifier) post(leader bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.leading = leader
	n.enqueueLocked(event{leader: leader})
}

// enqueueLocked queues ev and starts delivery if idle; n.mu is held.
func (n *notifier) enqueueLocked(ev event) {
	n.queue = append(n.queue, ev)
	if !n.running {
		n.running = true
		// Ends when the queue is empty.
		go n.deliver()
	}
}

// flush waits until every event posted so far has been delivered, and
// the listeners' calls have returned, or ctx ends. Called by a listener,
// it returns at once: what it would wait for comes after that listener
// returns.
func (n *notifier) flush(ctx context.Context) error {
	n.mu.Lock()
	if !n.running || n.deliverer == goid.Get() {
		n.mu.Unlock()
		return nil
	}
	if n.idle == nil {
		n.idle = make(chan struct{})
	}
	idle := n.idle
	n.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// deliver calls the listeners for each queued event, in order.
func (n *notifier) deliver() {
	n.mu.Lock()
	n.deliverer = goid.Get()
	n.mu.Unlock()
	for {
		n.mu.Lock()
		if len(n.queue) == 0 {
			n.running, n.deliverer = false, 0
			if n.idle != nil {
				close(n.idle)
				n.idle = nil
			}
			n.mu.Unlock()
			return
		}
		ev := n.queue[0]
		n.queue = slices.Delete(n.queue, 0, 1)
		targets := []*subscriber{ev.only}
		if ev.only == nil {
			targets = slices.Clone(n.subs)
		}
		n.mu.Unlock()
		for _, s := range targets {
			n.tell(s, ev.leader)
		}
	}
}

// tell gives s the event, unless s was removed or it would break the
// alternation (s already told the same).
func (n *notifier) tell(s *subscriber, leader bool) {
	n.mu.Lock()
	removed := s.removed
	n.mu.Unlock()
	switch {
	case removed, s.told == leader:
	case leader:
		s.told = true
		s.l.IsLeader()
	default:
		s.told = false
		s.l.NotLeader()
	}
}
