package leader

import (
	"context"
	"slices"
	"sync"

	"github.com/petermattis/goid"
)

// EventType says what changed in a latch's leadership.
type EventType int

const (
	// IsLeader: the latch has become leader (Curator's isLeader).
	IsLeader EventType = iota + 1
	// NotLeader: the latch's term has ended (Curator's notLeader), unless
	// the latch left silently (see CloseMode).
	NotLeader
)

// String returns the event type's name in lower case, as logs print it.
func (t EventType) String() string {
	switch t {
	case IsLeader:
		return "is leader"
	case NotLeader:
		return "not leader"
	}
	return "unknown"
}

// Event is one change of a latch's leadership.
type Event struct {
	Type EventType
	// Leadership is the term that began (IsLeader) or ended (NotLeader):
	// its Err says why it ended, its Guard and FencingToken serve writes
	// while it stands.
	Leadership *Leadership
}

// Listener is told when its latch becomes leader and when it stops being
// leader, as Curator's LeaderLatchListener. Its calls are made one at a
// time, on one goroutine at a time, in the order of the events: IsLeader
// and NotLeader strictly alternate, and NotLeader comes only after
// IsLeader. A call that blocks delays the later calls (of every listener
// of the latch) and, in Notify mode, the return of Close, which waits for
// the NotLeader it causes; never the latch's own work. A listener may
// call Close: that call does not wait for the listeners.
type Listener func(Event)

// notifier delivers a latch's events to its listeners in order, on one
// goroutine at a time, started when an event is posted to an idle
// notifier, so that a latch with no events costs no goroutine.
type notifier struct {
	mu      sync.Mutex // guards the fields below
	subs    []*subscriber
	queue   []event
	running bool        // a delivery goroutine is under way
	leading *Leadership // the term of the last event posted, if it began one
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
	Event
	only *subscriber
}

// add subscribes l. A listener added while the latch leads is told
// IsLeader first, so that its NotLeader never comes alone.
func (n *notifier) add(l Listener) (remove func()) {
	s := &subscriber{l: l}
	n.mu.Lock()
	n.subs = append(n.subs, s)
	if n.leading != nil {
		n.enqueueLocked(event{Event: Event{Type: IsLeader, Leadership: n.leading}, only: s})
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
func (n *notifier) post(ev Event) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.leading = nil
	if ev.Type == IsLeader {
		n.leading = ev.Leadership
	}
	n.enqueueLocked(event{Event: ev})
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
			n.tell(s, ev.Event)
		}
	}
}

// tell gives s the event, unless s was removed or it would break the
// alternation (s already told the same).
func (n *notifier) tell(s *subscriber, ev Event) {
	n.mu.Lock()
	removed := s.removed
	n.mu.Unlock()
	leader := ev.Type == IsLeader
	if removed || s.told == leader {
		return
	}
	s.told = leader
	s.l(ev)
}
