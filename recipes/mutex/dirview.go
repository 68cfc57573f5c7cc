package mutex

import (
	"path"
	"slices"

	"github.com/zkrecipes/zkrecipes/framework"
)

// dirView is the directory's children as the watch has told them since a
// listing. While it is exact, a waiter queues with its create alone: the
// server sends the create's event before the create's answer, and the
// client hands the event to deliver before it reads the answer, so once
// the create returns, the view has the new node and every change before
// it. That saves the listing, one request of three per acquisition.
//
// It is exact only while the server has had the watch on the connection
// all along since the listing it began from: WatchInterrupted (told before
// any reply on a new connection is handed on) and WatchResumed (the
// server has the watch again, but said nothing of what changed meanwhile)
// both end it, until a waiter's next listing.
type dirView struct {
	// epoch changes whenever the view may have missed an event: a
	// queueing or listing begun in another epoch counts for nothing.
	epoch uint64
	// on: the server has had the watch on the current connection since
	// before the epoch began.
	on    bool
	names map[string]struct{} // nil: not exact
	// listings are those under way in this epoch (a new one drops them):
	// each gathers the events that may come after its answer, to replay
	// onto it.
	listings []*viewListing
}

// viewListing is a listing of the directory under way.
type viewListing struct {
	events []framework.WatchEvent
}

// armed records that the watch is on the server, if no event has ended
// an epoch since epoch (then a new connection may not have it yet, and
// its WatchResumed arms the view).
func (v *dirView) armed(epoch uint64) {
	if v.epoch == epoch {
		v.on = true
	}
}

// drop forgets the view: its watch is closed, has ended, or is not yet
// set again on a new connection.
func (v *dirView) drop() {
	v.on = false
	v.reset()
}

func (v *dirView) reset() {
	v.epoch++
	v.names = nil
	v.listings = nil
}

// apply keeps the view by ev, an event of the watch of dir.
func (v *dirView) apply(dir string, ev framework.WatchEvent) {
	switch ev.Type {
	case framework.WatchInterrupted:
		v.drop()
		return
	case framework.WatchResumed, framework.WatchSessionChanged:
		v.on = true
		v.reset()
		return
	case framework.NodeCreated, framework.NodeDeleted:
	default:
		return
	}
	if path.Dir(ev.Path) != dir {
		return // a node further down, not in the queue
	}
	for _, l := range v.listings {
		l.events = append(l.events, ev)
	}
	if v.names != nil {
		v.set(path.Base(ev.Path), ev.Type)
	}
}

func (v *dirView) set(name string, typ framework.WatchEventType) {
	if typ == framework.NodeCreated {
		v.names[name] = struct{}{}
	} else {
		delete(v.names, name)
	}
}

// exact reports whether the view is the directory's children now.
func (v *dirView) exact() bool { return v.names != nil }

// begin starts a listing that, answered in the same epoch, makes the view
// exact; nil if no listing can (the server may not have the watch).
func (v *dirView) begin() *viewListing {
	if !v.on {
		return nil
	}
	l := &viewListing{}
	v.listings = append(v.listings, l)
	return l
}

// end ends listing l with its result, children (nil if it failed). A
// listing answered in its epoch, with the watch on the server all along,
// is the children at some moment after it began; the events since it
// began, replayed onto it, bring it to now, for a node is created once
// and deleted once, in that order, and each event only repeats what the
// listing shows or comes after it.
func (v *dirView) end(l *viewListing, children []string) {
	i := slices.Index(v.listings, l)
	if i < 0 {
		return // begun in an earlier epoch, which may have missed events
	}
	v.listings = slices.Delete(v.listings, i, i+1)
	if children == nil || v.names != nil {
		return // nothing to go by, or exact already
	}
	v.names = make(map[string]struct{}, len(children))
	for _, name := range children {
		v.names[name] = struct{}{}
	}
	for _, ev := range l.events {
		v.set(path.Base(ev.Path), ev.Type)
	}
}

// list returns the children, if node is among them; else nil.
func (v *dirView) list(node string) []string {
	if _, ok := v.names[node]; !ok {
		return nil
	}
	children := make([]string, 0, len(v.names))
	for name := range v.names {
		children = append(children, name)
	}
	return children
}
