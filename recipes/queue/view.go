package queue

import (
	"path"
	"slices"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// viewCap bounds a consumer's view of the backlog: it keeps the first
// viewCap items in the queue's order and forgets the rest, which it lists
// again once it has taken or lost what it keeps (see view.overflow). So a
// consumer holds at most viewCap names between listings, however long the
// queue grows; a listing holds the whole directory's names while it is
// read, as Curator's does.
const viewCap = 4096

// view is a consumer's backlog as its recursive watch of the queue's
// directory (ZooKeeper 3.6+) has told it since a listing: the item names
// in the queue's order. Its events come on the client's receiving
// goroutine before the replies that follow them, so an item the view has
// seen deleted is gone on the server (a name is never given twice), and a
// take skips it without a request.
//
// It is exact only while the server has had the watch since the listing
// it began from: WatchInterrupted (a new connection, on which the watch
// is not yet set again) and WatchResumed or WatchSessionChanged (the server
// says nothing of what changed meanwhile) end it, until the next listing.
type view struct {
	dir   string
	kind  kind
	limit int           // viewCap, but in tests
	wake  chan struct{} // has room for one wake-up: an item came, or the view must be listed again

	mu sync.Mutex // guards the fields below
	// epoch changes whenever the view may have missed an event: a
	// listing begun in another epoch counts for nothing.
	epoch uint64
	on    bool     // the server has the watch on the current connection
	exact bool     // names is the backlog
	names []string // sorted by kind.compare; at most viewCap
	// heard holds when the view heard of each item of names it heard
	// created (not of those it listed): how long it has waited.
	heard map[string]time.Time
	// overflow: items were left out to keep names within viewCap, so an
	// empty view does not mean an empty queue.
	overflow bool
	listing  []framework.WatchEvent // events since the listing under way began
	listed   bool                   // a listing is under way
	ended    bool                   // the watch ended: fall back to listings
	created  uint64                 // items created since the view began, for a batch's refresh
	deleted  uint64                 // items deleted since the view began, for the stagger's estimate
}

func newView(dir string, k kind) *view {
	return &view{dir: dir, kind: k, limit: viewCap, wake: make(chan struct{}, 1), heard: make(map[string]time.Time)}
}

// apply keeps the view by ev. It runs on the client's receiving goroutine
// and never blocks.
func (v *view) apply(ev framework.WatchEvent) {
	v.mu.Lock()
	wake := v.applyLocked(ev)
	v.mu.Unlock()
	if wake {
		v.signal()
	}
}

func (v *view) applyLocked(ev framework.WatchEvent) (wake bool) {
	switch ev.Type {
	case framework.WatchInterrupted:
		v.on = false
		v.reset()
		return false
	case framework.WatchResumed, framework.WatchSessionChanged:
		v.on = true
		v.reset()
		return true // list again
	case framework.NodeCreated, framework.NodeDeleted:
	default:
		return false
	}
	if path.Dir(ev.Path) != v.dir || !isItem(path.Base(ev.Path)) {
		return false // the directory itself, a node further down, or a foreign node
	}
	if v.listed {
		v.listing = append(v.listing, ev)
	}
	if ev.Type == framework.NodeCreated {
		v.created++
	} else {
		v.deleted++
	}
	if !v.exact {
		return false
	}
	return v.change(ev.Type, path.Base(ev.Path))
}

// change applies a creation or a deletion of the item name to names; true
// for a creation.
func (v *view) change(typ framework.WatchEventType, name string) bool {
	i, found := slices.BinarySearchFunc(v.names, name, v.kind.compare)
	switch {
	case typ == framework.NodeDeleted:
		if found {
			v.names = slices.Delete(v.names, i, i+1)
			delete(v.heard, name)
		}
		return false
	case found:
		return false
	case len(v.names) < v.limit:
		v.names = slices.Insert(v.names, i, name)
	case i < len(v.names): // full: keep the first v.limit
		delete(v.heard, v.names[len(v.names)-1])
		v.names = slices.Insert(v.names[:len(v.names)-1], i, name)
		v.overflow = true
	default:
		v.overflow = true
		return true
	}
	v.heard[name] = time.Now()
	return true
}

// reset ends the epoch: the view must be listed again.
func (v *view) reset() {
	v.epoch++
	v.exact, v.names, v.overflow = false, nil, false
	clear(v.heard)
	v.listing, v.listed = nil, false
}

// end records that the watch ended other than by Close.
func (v *view) end(error) {
	v.mu.Lock()
	v.ended = true
	v.on = false
	v.reset()
	v.mu.Unlock()
	v.signal()
}

func (v *view) signal() {
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

// armed records that the watch is set on the server, unless a new
// connection came since epoch (its WatchResumed arms the view).
func (v *view) armed(epoch uint64) {
	v.mu.Lock()
	if v.epoch == epoch {
		v.on = true
	}
	v.mu.Unlock()
}

// state says whether the watch ended, whether the server has it on the
// current connection, and whether the view is exact.
func (v *view) state() (ended, on, exact bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.ended, v.on, v.exact
}

// current returns the epoch, before the watch is set.
func (v *view) current() uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.epoch
}

// creates counts the items created since the view began.
func (v *view) creates() uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.created
}

// deletions counts the items deleted since the view began.
func (v *view) deletions() uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.deleted
}

// begin begins a listing; it counts only if the epoch has not changed
// when it ends.
func (v *view) begin() uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.listing, v.listed = nil, true
	return v.epoch
}

// fill ends the listing begun in epoch with its children: the events
// that came during it are replayed onto it (each item is created once and
// deleted once, in that order, so replaying what the listing already shows
// changes nothing). The view is exact from then on if the server had the
// watch all along.
func (v *view) fill(epoch uint64, children []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.epoch != epoch || !v.on {
		return
	}
	names := make([]string, 0, min(len(children), v.limit))
	for _, c := range children {
		if isItem(c) {
			names = append(names, c)
		}
	}
	slices.SortFunc(names, v.kind.compare)
	v.overflow = len(names) > v.limit
	v.names = slices.Clip(names[:min(len(names), v.limit)])
	v.exact = true
	for _, ev := range v.listing {
		v.change(ev.Type, path.Base(ev.Path))
	}
	v.listing, v.listed = nil, false
}

// items returns the view's items, in the queue's order; none when it is
// not exact. When it holds none but left some out, it must be listed
// again.
func (v *view) items() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.exact {
		return nil
	}
	if len(v.names) == 0 && v.overflow {
		v.reset()
		v.signal()
		return nil
	}
	return slices.Clone(v.names)
}

// heardAt returns when the view heard of the item name created; the zero
// time for an item it listed.
func (v *view) heardAt(name string) time.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.heard[name]
}

// has reports whether the item name is in the view: if not, it was
// deleted (or the view is not exact, or left it out), and a take of it
// ends without a request.
func (v *view) has(name string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	_, found := slices.BinarySearchFunc(v.names, name, v.kind.compare)
	return v.exact && found
}
