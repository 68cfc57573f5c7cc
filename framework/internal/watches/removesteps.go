package watches

import "github.com/zkrecipes/zkrecipes/framework/internal/wire"

// How a server that keeps one mode per path (see servermodes.go) is
// brought in line with what the client needs, once a watch of a path is
// no longer needed. Each step is decided as its request is written, from
// the replica of the modes and what the client has on the path then: a
// one-shot read whose answer has not come, or a Watch whose addWatch has
// not, counts as there. One-shot watches a mode served are set on the
// server first, by a watched read of the path, which replaces the mode
// in one step: what changed before it came through the mode, what
// changes after through the one-shot watch, and nothing falls between.
// Then what no one needs is removed, manager by manager (removeWatches of
// the data or child watches of a path, which 3.6 to 3.8 know; a one-shot
// watch of the same manager would go with it, and none is left there).
// A recursive mode that served persistent Watches of its path (see
// covered.go) is replaced by the persistent mode first, with an addWatch:
// one step again, so that nothing falls between.

// Step is one request of a removal.
type Step int8

const (
	RemovalDone     Step = iota // nothing left to do
	convertData                 // exists with a watch
	convertChildren             // getChildren with a watch
	removeData                  // removeWatches of the data watches
	removeChildren              // removeWatches of the child watches
	removeBoth                  // removeWatches of every watch
	setPersistent               // addWatch of the persistent mode
)

// removalView is what decides a removal's next step.
type removalView struct {
	needPersistent, needRecursive bool // a Watch of the path needs the mode
	data, child                   serverMode
	dataShots, childShots         bool // one-shot watches of the path, by manager
}

// next is the step that brings the server closer to the view's needs.
func (v removalView) next() Step {
	dataNeeded := v.needPersistent || v.needRecursive
	switch {
	case v.needPersistent && !v.needRecursive && v.data == modeRecursive:
		return setPersistent
	case !dataNeeded && v.data != modeNone && v.dataShots:
		return convertData
	case !v.needPersistent && v.child == modePersistent && v.childShots:
		return convertChildren
	}
	// A mode with one-shot watches in its manager was converted above:
	// no one-shot watch is left in a manager that holds a mode (the
	// child watches a recursive mode displaced are being set again).
	dropData := !dataNeeded && v.data != modeNone
	dropChild := (v.child == modePersistent && !v.needPersistent) || (v.child == modeRecursive && !dataNeeded)
	switch {
	case dropData && dropChild:
		return removeBoth
	case dropData:
		return removeData
	case dropChild:
		return removeChildren
	}
	return RemovalDone
}

// removalViewLocked is the view of path now; t.mu held.
func (t *Table) removalViewLocked(path string) removalView {
	m := t.modes[path]
	if m == nil {
		m = &pathModes{}
	}
	_, lingersP := t.lingering[Key{path, Persistent}]
	_, lingersR := t.lingering[Key{path, Recursive}]
	shots := func(kinds ...Kind) bool {
		for _, k := range kinds {
			if len(t.oneShot[oneShotKey{path, k}]) > 0 {
				return true
			}
		}
		return false
	}
	return removalView{
		needPersistent: lingersP || len(t.persistent[path]) > 0 || m.adding[Persistent] > 0,
		needRecursive:  lingersR || len(t.recursive[path]) > 0 || m.adding[Recursive] > 0,
		data:           m.data, child: m.child,
		dataShots:  m.dataReads > 0 || shots(DataWatch, ExistWatch),
		childShots: m.childReads > 0 || shots(ChildWatch),
	}
}

// NextRemoval returns the next step of a removal at path without taking
// it.
func (t *Table) NextRemoval(path string) Step {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.removalViewLocked(path).next()
}

// WriteRemoval decides the next step of a removal at path as its request
// is written, and records its effect.
func (t *Table) WriteRemoval(path string) Step {
	t.mu.Lock()
	defer t.mu.Unlock()
	step := t.removalViewLocked(path).next()
	if step == RemovalDone {
		return step
	}
	m := t.modesOf(path)
	switch step {
	case convertData:
		m.data = modeNone
		m.dataReads++
	case convertChildren:
		m.child = modeNone
		m.childReads++
	case removeData:
		m.data = modeNone
	case removeChildren:
		m.child = modeNone
	case removeBoth:
		m.data, m.child = modeNone, modeNone
	case setPersistent:
		m.data, m.child = modePersistent, modePersistent
	}
	t.tidyLocked(path)
	return step
}

// Request sets req to the step's request of path. RemovalDone, decided
// after a request was sent for it, writes a read that changes nothing.
func (s Step) Request(req *wire.Carried, path string) {
	var w wire.JuteWriter
	w.String(path)
	switch s {
	case RemovalDone, convertData:
		req.Opcode = wire.OpExists
		w.Bool(s == convertData)
	case convertChildren:
		req.Opcode = wire.OpGetChildren2
		w.Bool(true)
	case setPersistent:
		req.Opcode = wire.OpAddWatch
		w.Int32(int32(Persistent))
	default:
		req.Opcode = wire.OpRemoveWatches
		w.Int32(map[Step]int32{removeData: wire.WatcherData, removeChildren: wire.WatcherChildren, removeBoth: wire.WatcherAny}[s])
	}
	req.Body = w.B
}

// RemovalAnswered records the answer of a step WriteRemoval recorded.
func (t *Table) RemovalAnswered(path string, step Step, code int32) {
	switch step {
	case convertData, convertChildren:
		t.ReadAnswered(path, step == convertChildren)
	}
	switch step {
	case convertData, removeData, removeBoth: // whatever the answer: none is left
		t.Applied(path, false)
	case setPersistent:
		if code == wire.CodeOK {
			t.Applied(path, false)
		}
	}
}
