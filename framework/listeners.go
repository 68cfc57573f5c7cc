package framework

import "sync"

// Listener receives connection state changes. Each listener is called on a
// goroutine of its own, one change at a time and in order; a slow listener
// delays only itself and loses nothing.
type Listener func(StateChange)

// listenerSet fans state changes out to listeners without dropping any.
type listenerSet struct {
	mu     sync.Mutex
	next   int
	queues map[int]*listenerQueue
	closed bool
}

// listenerQueue is one listener's unbounded queue and its delivery goroutine.
type listenerQueue struct {
	mu      sync.Mutex
	pending []StateChange
	wake    chan struct{} // capacity 1: a delivery is pending
	done    chan struct{} // closed to stop delivery
}

func newListenerSet() *listenerSet {
	return &listenerSet{queues: make(map[int]*listenerQueue)}
}

// add starts delivering to fn and returns the function that stops it.
func (s *listenerSet) add(fn Listener) (remove func()) {
	q := &listenerQueue{wake: make(chan struct{}, 1), done: make(chan struct{})}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return func() {}
	}
	id := s.next
	s.next++
	s.queues[id] = q
	s.mu.Unlock()
	// Ends when remove is called or the set is closed.
	go q.deliver(fn)
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			_, present := s.queues[id] // not if close stopped it already
			delete(s.queues, id)
			s.mu.Unlock()
			if present {
				close(q.done)
			}
		})
	}
}

// publish queues change for every listener. Callers serialise publishes so
// that every listener sees the same order.
func (s *listenerSet) publish(change StateChange) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, q := range s.queues {
		q.push(change)
	}
}

// close stops every listener; changes not yet delivered are dropped.
func (s *listenerSet) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for id, q := range s.queues {
		delete(s.queues, id)
		close(q.done)
	}
}

func (q *listenerQueue) push(change StateChange) {
	q.mu.Lock()
	q.pending = append(q.pending, change)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *listenerQueue) deliver(fn Listener) {
	for {
		select {
		case <-q.done:
			return
		case <-q.wake:
		}
		q.mu.Lock()
		batch := q.pending
		q.pending = nil
		q.mu.Unlock()
		for _, change := range batch {
			select {
			case <-q.done:
				return
			default:
			}
			fn(change)
		}
	}
}
