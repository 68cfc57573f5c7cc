package framework

import "github.com/zkrecipes/zkrecipes/framework/internal/watches"

// watchSubscriber is a Watch as the client's watch table holds it. The
// table compares its subscribers with ==: two values of one Watch are
// equal, so w.sub() may be made again at each call.
type watchSubscriber struct{ w *Watch }

// sub returns w as the table's subscriber.
func (w *Watch) sub() watches.Subscriber { return watchSubscriber{w} }

// Key returns the server path and mode of the watch.
func (s watchSubscriber) Key() watches.Key {
	return watches.Key{Path: s.w.serverPath, Mode: watches.Mode(s.w.mode)}
}

// Deliver turns the table's event into the Watch's: a node event's path
// as the receiver sees it (the namespace taken off), news of the
// connection with the path as the caller gave it.
func (s watchSubscriber) Deliver(ev watches.Event) {
	w := s.w
	switch ev.Type {
	case watches.Interrupted:
		if w.onEvent != nil { // told only to a watch of Hooks.WatchFunc
			w.push(WatchEvent{Type: WatchInterrupted, Path: w.path})
		}
	case watches.Resumed:
		w.push(WatchEvent{Type: WatchResumed, Path: w.path, Zxid: ev.Zxid})
	case watches.SessionChanged:
		w.push(WatchEvent{Type: WatchSessionChanged, Path: w.path, Zxid: ev.Zxid})
	default: // a node event: the table's types are the server's, as ours
		w.push(WatchEvent{Type: WatchEventType(ev.Type), Path: w.c.clientPath(ev.Path)})
	}
}

// End ends the Watch with err; its queued events are still delivered.
func (s watchSubscriber) End(err error) { s.w.end(err) }

// watchOf returns the Watch behind a subscriber of the client's table.
func watchOf(s watches.Subscriber) *Watch { return s.(watchSubscriber).w }
