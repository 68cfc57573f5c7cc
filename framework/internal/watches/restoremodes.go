package watches

import (
	"slices"

	"github.com/go-zookeeper/zk"
)

// What a setWatches or setWatches2 request does to the modes the server
// holds (see servermodes.go): a reconnect's restore, and ChangedSince's
// probes. Both are decided as the request is written, from the replica.

// WriteWatches records a setWatches or setWatches2 request of b as it is
// written, and returns the lists to send: the server applies its one-shot
// lists first (each fires at once or sets a one-shot watch), then the
// persistent list, then the recursive one. A persistent path whose
// recursive mode the server holds, or is to get from the recursive list
// of the same restore, is left out: that mode serves its Watches
// (covered.go), and one set after it would replace it. A probe of
// ChangedSince (b.LeftOut set) leaves out the paths a one-shot watch of
// would replace a mode at, and returns them, to be read instead.
func (t *Table) WriteWatches(b Batch, apart bool) (set, leftOut RestoreSet) {
	t.mu.Lock()
	defer t.mu.Unlock()
	set = b.Paths
	if !apart && b.LeftOut != nil {
		set, leftOut = t.unprobedLocked(set)
	}
	if !apart && len(set.Persistent) > 0 {
		kept := make([]string, 0, len(set.Persistent))
		for _, p := range set.Persistent {
			if m := t.modes[p]; !b.Recursive[p] && (m == nil || m.data != modeRecursive) {
				kept = append(kept, p)
			}
		}
		set.Persistent = kept
	}
	if !apart && b.LeftOut == nil {
		set = t.modesKeptLocked(b, set)
	}
	for _, list := range [][]string{set.Data, set.Exist} {
		for _, p := range list {
			if m := t.modes[p]; m != nil {
				m.data = modeNone
				t.tidyLocked(p)
			}
		}
	}
	for _, p := range set.Child {
		if m := t.modes[p]; m != nil {
			m.child = modeNone
			t.tidyLocked(p)
		}
	}
	if apart {
		return set, leftOut
	}
	for _, p := range set.Persistent {
		m := t.modesOf(p)
		m.data, m.child = modePersistent, modePersistent
	}
	for _, p := range set.Recursive {
		m := t.modesOf(p)
		m.data, m.child = modeRecursive, modeRecursive
	}
	return set, leftOut
}

// modesKeptLocked adds to the mode lists of set the mode of each path of
// its one-shot lists that a one-shot watch would replace: a mode set on
// the connection before the restore, by a Watch of the path set then.
// The server sets the modes after the one-shot watches, which then ride
// on them or, for a child watch and a recursive mode, are set again. t.mu
// held.
func (t *Table) modesKeptLocked(b Batch, set RestoreSet) RestoreSet {
	listed := make(map[string]bool)
	for _, p := range append(slices.Clip(set.Persistent), set.Recursive...) {
		listed[p] = true
	}
	keep := func(p string, mode serverMode) {
		if listed[p] {
			return
		}
		listed[p] = true
		if mode == modeRecursive || b.Recursive[p] {
			set.Recursive = append(slices.Clip(set.Recursive), p)
		} else {
			set.Persistent = append(slices.Clip(set.Persistent), p)
		}
	}
	for _, p := range append(slices.Clip(set.Data), set.Exist...) {
		if m := t.modes[p]; m != nil && m.data != modeNone {
			keep(p, m.data)
		}
	}
	for _, p := range set.Child {
		if m := t.modes[p]; m != nil && m.child == modePersistent {
			keep(p, modePersistent)
		}
	}
	return set
}

// unprobedLocked divides the one-shot lists of set into the paths where
// the server holds no mode a one-shot watch would replace, and the
// others; t.mu held. A one-shot watch of the child manager leaves a
// recursive mode hearing (see above), but a path is asked or read whole.
func (t *Table) unprobedLocked(set RestoreSet) (kept, left RestoreSet) {
	held := func(p string) bool {
		m := t.modes[p]
		return m != nil && (m.data != modeNone || m.child == modePersistent)
	}
	split := func(list []string) (kept, left []string) {
		for _, p := range list {
			if held(p) {
				left = append(left, p)
			} else {
				kept = append(kept, p)
			}
		}
		return kept, left
	}
	kept.Data, left.Data = split(set.Data)
	kept.Exist, left.Exist = split(set.Exist)
	kept.Child, left.Child = split(set.Child)
	return kept, left
}

// WatchesAnswered records the answer of a request WriteWatches recorded,
// and returns the child one-shot watches of each recursively watched
// path, which the recursive mode displaced: to set again.
func (t *Table) WatchesAnswered(set RestoreSet, apart bool) map[string][]chan zk.Event {
	if apart {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, list := range [][]string{set.Data, set.Exist, set.Persistent} {
		for _, p := range list {
			t.appliedLocked(p, false)
		}
	}
	var displaced map[string][]chan zk.Event
	for _, p := range set.Recursive {
		t.appliedLocked(p, true)
		if list := t.oneShot[oneShotKey{p, ChildWatch}]; len(list) > 0 {
			if displaced == nil {
				displaced = make(map[string][]chan zk.Event)
			}
			displaced[p] = append([]chan zk.Event(nil), list...)
		}
	}
	return displaced
}
