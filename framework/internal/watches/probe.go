package watches

import (
	"sync"

	"github.com/go-zookeeper/zk"
)

// Probe collects the notifications of a ChangedSince: those of the
// one-shot watches it asked for.
type Probe struct {
	mu     sync.Mutex
	asked  map[oneShotKey]bool
	events []zk.Event
	left   RestoreSet // left out of the requests as they were written
}

// AddProbe registers a probe of the one-shot lists of rs: it hears the
// notifications from now on, until RemoveProbe.
func (t *Table) AddProbe(rs RestoreSet) *Probe {
	p := &Probe{asked: make(map[oneShotKey]bool, len(rs.Data)+len(rs.Child)+len(rs.Exist))}
	for _, sp := range rs.Data {
		p.asked[oneShotKey{sp, DataWatch}] = true
	}
	for _, sp := range rs.Child {
		p.asked[oneShotKey{sp, ChildWatch}] = true
	}
	for _, sp := range rs.Exist {
		p.asked[oneShotKey{sp, ExistWatch}] = true
	}
	t.mu.Lock()
	t.probes = append(t.probes, p)
	t.mu.Unlock()
	return p
}

// RemoveProbe ends p's hearing.
func (t *Table) RemoveProbe(p *Probe) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, q := range t.probes {
		if q == p {
			t.probes = append(t.probes[:i], t.probes[i+1:]...)
			return
		}
	}
}

// Leave records paths left out of a request as it was written: they are
// not asked. It runs on the goroutine that writes the connection.
func (p *Probe) Leave(left RestoreSet) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range []struct {
		paths []string
		kind  Kind
	}{{left.Data, DataWatch}, {left.Exist, ExistWatch}, {left.Child, ChildWatch}} {
		for _, sp := range l.paths {
			delete(p.asked, oneShotKey{sp, l.kind})
		}
	}
	p.left.Data = append(p.left.Data, left.Data...)
	p.left.Exist = append(p.left.Exist, left.Exist...)
	p.left.Child = append(p.left.Child, left.Child...)
}

// Left returns the one-shot lists of the paths left out of the requests.
func (p *Probe) Left() RestoreSet {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.left
}

// note records ev if it answers a watch the probe asked for. A deleted
// node answers its data and its child watch, each with a notification:
// it is recorded once.
func (p *Probe) note(ev zk.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	answered := false
	for _, kind := range firedKinds(ev.Type) {
		k := oneShotKey{ev.Path, kind}
		if p.asked[k] {
			delete(p.asked, k)
			answered = true
		}
	}
	if answered {
		p.events = append(p.events, ev)
	}
}

// Events returns the notifications recorded, in their order.
func (p *Probe) Events() []zk.Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]zk.Event(nil), p.events...)
}
