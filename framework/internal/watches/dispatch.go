package watches

import (
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// Notify dispatches a notification's body (type, state, path). It runs on
// the goroutine that reads the connection and never blocks.
func (t *Table) Notify(body []byte) error {
	ev, err := wire.ParseNotification(body)
	if err != nil {
		return err
	}
	t.dispatch(ev)
	return nil
}

func (t *Table) dispatch(ev zk.Event) {
	var fired []chan zk.Event
	var watchers []Subscriber
	t.mu.Lock()
	for _, kind := range firedKinds(ev.Type) {
		k := oneShotKey{ev.Path, kind}
		fired = append(fired, t.oneShot[k]...)
		delete(t.oneShot, k)
	}
	own, parents := t.persistentFor(ev)
	watchers = append(watchers, own...)
	parents = append([]Subscriber(nil), parents...)
	for _, p := range t.probes {
		p.note(ev)
	}
	if ev.Type != zk.EventNodeChildrenChanged {
		for p := ev.Path; ; p = parentPath(p) {
			watchers = append(watchers, t.recursive[p]...)
			if p == "/" {
				break
			}
		}
	}
	t.mu.Unlock()
	for _, ch := range fired {
		ch <- ev // each channel has room for its one event
		close(ch)
	}
	for _, s := range watchers {
		s.Deliver(Event{Type: EventType(ev.Type), Path: ev.Path})
	}
	for _, s := range parents { // served from the recursive mode (covered.go)
		s.Deliver(Event{Type: NodeChildrenChanged, Path: s.Key().Path})
	}
	(*t.onNode.Load())(ev)
}

// firedKinds is which one-shot watches an event ends: the rules of
// ZooKeeper's own client (ZKWatchManager).
func firedKinds(typ zk.EventType) []Kind {
	switch typ {
	case zk.EventNodeCreated, zk.EventNodeDataChanged:
		return []Kind{DataWatch, ExistWatch}
	case zk.EventNodeChildrenChanged:
		return []Kind{ChildWatch}
	case zk.EventNodeDeleted:
		return []Kind{DataWatch, ExistWatch, ChildWatch}
	}
	return nil
}

// parentPath is the parent of a server path; "/" is its own.
func parentPath(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}
