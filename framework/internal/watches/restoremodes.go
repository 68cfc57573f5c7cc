package framework

import (
	"slices"

	"github.com/go-zookeeper/zk"
)

// What a setWatches or setWatches2 request does to the modes the server
// holds (see servermodes.go): a reconnect's restore, and ChangedSince's
// probes. Both are decided as the request is written, from the replica.

// writeWatches records a setWatches or setWatches2 request of b as it is
// written, and returns the lists to send: the server applies its one-shot
// lists first (each fires at once or sets a one-shot watch), then the
// persistent list, then the recursive one. A persistent path whose
// recursive mode the server holds, or is to get from the recursive list
// of the same restore, is left out: that mode serves its Watches
// (covered.go), and one set after it would replace it. A probe of
// ChangedSince (b.leftOut set) leaves out the paths a one-shot watch of
// would replace a mode at, and returns them, to be read instead.
func (t *watchTable) writeWatches(b watchBatch, apart bool) (set, leftOut restoreSet) {
	t.mu.Lock()
	defer t.mu.Unlock()
	set = b.paths
	if !apart && b.leftOut != nil {
		set, leftOut = t.unprobedLocked(set)
	}
	if !apart && len(set.persistent) > 0 {
		kept := make([]string, 0, len(set.persistent))
		for _, p := range set.persistent {
			if m := t.modes[p]; !b.recursive[p] && (m == nil || m.data != modeRecursive) {
				kept = append(kept, p)
			}
		}
		set.persistent = kept
	}
	if !apart && b.leftOut == nil {
		set = t.modesKeptLocked(b, set)
	}
	for _, list := range [][]string{set.data, set.exist} {
		for _, p := range list {
			if m := t.modes[p]; m != nil {
				m.data = modeNone
				t.tidyLocked(p)
			}
		}
	}
	for _, p := range set.child {
		if m := t.modes[p]; m != nil {
			m.child = modeNone
			t.tidyLocked(p)
		}
	}
	if apart {
		return set, leftOut
	}
	for _, p := range set.persistent {
		m := t.modesOf(p)
		m.data, m.child = modePersistent, modePersistent
	}
	for _, p := range set.recursive {
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
func (t *watchTable) modesKeptLocked(b watchBatch, set restoreSet) restoreSet {
	listed := make(map[string]bool)
	for _, p := range append(slices.Clip(set.persistent), set.recursive...) {
		listed[p] = true
	}
	keep := func(p string, mode serverMode) {
		if listed[p] {
			return
		}
		listed[p] = true
		if mode == modeRecursive || b.recursive[p] {
			set.recursive = append(slices.Clip(set.recursive), p)
		} else {
			set.persistent = append(slices.Clip(set.persistent), p)
		}
	}
	for _, p := range append(slices.Clip(set.data), set.exist...) {
		if m := t.modes[p]; m != nil && m.data != modeNone {
			keep(p, m.data)
		}
	}
	for _, p := range set.child {
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
func (t *watchTable) unprobedLocked(set restoreSet) (kept, left restoreSet) {
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
	kept.data, left.data = split(set.data)
	kept.exist, left.exist = split(set.exist)
	kept.child, left.child = split(set.child)
	return kept, left
}

// watchesAnswered records the answer of a request writeWatches recorded,
// and returns the child one-shot watches of each recursively watched
// path, which the recursive mode displaced: to set again.
func (t *watchTable) watchesAnswered(set restoreSet, apart bool) map[string][]chan zk.Event {
	if apart {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, list := range [][]string{set.data, set.exist, set.persistent} {
		for _, p := range list {
			t.appliedLocked(p, false)
		}
	}
	var displaced map[string][]chan zk.Event
	for _, p := range set.recursive {
		t.appliedLocked(p, true)
		if list := t.oneShot[oneShotKey{p, watchChild}]; len(list) > 0 {
			if displaced == nil {
				displaced = make(map[string][]chan zk.Event)
			}
			displaced[p] = append([]chan zk.Event(nil), list...)
		}
	}
	return displaced
}
