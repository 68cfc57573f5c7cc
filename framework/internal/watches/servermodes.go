package watches

import (
	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// What the server holds for the client, path by path. ZooKeeper 3.6 to
// 3.8 keep, per connection, one watch mode per path in each of their two
// watch managers (ZOOKEEPER-4466): the data manager (the watches of
// getData and exists) and the child manager (those of getChildren); an
// addWatch sets its mode in both, a recursive one too. A one-shot watch
// set on a path replaces the persistent or recursive mode there, and an
// addWatch replaces a one-shot watch and the other mode.
//
// So the table keeps a replica of the modes, updated as each request that
// changes them is written: on the goroutine that writes the connection,
// in the order of the wire, which is the order in which the server
// applies them. A one-shot watch whose events a mode of its path brings
// already is not sent to the server: its read goes without the watch
// flag, the client alone registers the watch as the reply is read, and
// the mode's notifications fire it, as the server's own watch would fire
// (the reply orders them: an event after the read comes after it). The
// data manager's persistent and recursive modes both send NodeCreated,
// NodeDataChanged and NodeDeleted of the path, which is all a watch of
// getData or exists hears; the child manager's persistent mode sends
// NodeChildrenChanged and NodeDeleted, all a watch of getChildren hears,
// but its recursive mode sends no NodeChildrenChanged. A child watch of a
// recursively watched path is therefore set on the server: it displaces
// the recursive mode's child part, which sends nothing the data part does
// not (NodeDeleted of the nodes below, told once per connection). A mode
// set on another path, an ancestor's, is another key: no collision. A
// persistent and a recursive Watch of one path: see covered.go.
//
// ZooKeeper 3.9 keeps the modes apart. For a server that says it is 3.9
// or later the table records none, and every one-shot watch goes to it.

// serverMode is the mode the server holds at a path in one manager.
type serverMode int8

const (
	modeNone       serverMode = iota // none, or a one-shot watch
	modePersistent                   // an addWatch of Persistent
	modeRecursive                    // an addWatch of Recursive
)

func modeOf(m Mode) serverMode {
	if m == Recursive {
		return modeRecursive
	}
	return modePersistent
}

// pathModes is what the server holds, or is about to, at one path.
type pathModes struct {
	data, child serverMode
	// One-shot reads of the path written and not answered yet, by
	// manager: their watches are registered as the answer is read.
	dataReads, childReads int
	// addWatch requests of the path written and not answered yet, by mode.
	adding [2]int
}

func (m *pathModes) idle() bool {
	return *m == pathModes{}
}

// modesOf returns the record of path, made if missing; t.mu held.
func (t *Table) modesOf(path string) *pathModes {
	m := t.modes[path]
	if m == nil {
		m = &pathModes{}
		t.modes[path] = m
	}
	return m
}

// tidyLocked forgets the record of path once it says nothing; t.mu held.
func (t *Table) tidyLocked(path string) {
	if m := t.modes[path]; m != nil && m.idle() {
		delete(t.modes, path)
	}
}

// WriteRead records a one-shot read of path, of the child manager or the
// data one, as it is written, and says whether it must carry the watch
// flag: not when a mode of the path brings its events already.
func (t *Table) WriteRead(path string, child bool) (watch bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.modesOf(path)
	if child {
		m.childReads++
		if m.child == modePersistent {
			return false
		}
		m.child = modeNone
		return true
	}
	m.dataReads++
	return m.data == modeNone
}

// ReadAnswered records the answer of a read WriteRead recorded, after
// its watch is registered: a removal never sees the watch in neither.
func (t *Table) ReadAnswered(path string, child bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.modes[path]
	if m == nil {
		return // a new connection came between
	}
	switch {
	case child && m.childReads > 0:
		m.childReads--
	case !child && m.dataReads > 0:
		m.dataReads--
	}
	t.tidyLocked(path)
}

// AddRecord is what WriteAdd saw of an addWatch, for AddAnswered.
type AddRecord struct {
	prev    pathModes // what the path had
	apart   bool      // the server keeps the modes apart (3.9 and later)
	Covered bool      // served by the recursive mode: not sent (covered.go)
}

// WriteAdd records an addWatch of path as it is written.
func (t *Table) WriteAdd(path string, mode Mode, apart bool) AddRecord {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.modesOf(path)
	add := AddRecord{prev: *m, apart: apart, Covered: m.coversPersistent(mode, apart)}
	m.adding[mode]++
	if !apart && !add.Covered {
		m.data, m.child = modeOf(mode), modeOf(mode)
	}
	return add
}

// AddAnswered records the answer of an addWatch WriteAdd recorded, after
// the Watch is registered: a refused one leaves the modes as they were.
// It returns the child one-shot watches of the path that a recursive mode
// displaced on the server, to set again: those registered now, whose
// reads came before the addWatch.
func (t *Table) AddAnswered(path string, mode Mode, ok bool, add AddRecord) []chan zk.Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.modes[path]
	if m == nil {
		return nil // a new connection came between
	}
	if m.adding[mode] > 0 {
		m.adding[mode]--
	}
	defer t.tidyLocked(path)
	switch {
	case add.apart || add.Covered:
		return nil
	case !ok:
		if m.data == modeOf(mode) {
			m.data = add.prev.data
		}
		if m.child == modeOf(mode) {
			m.child = add.prev.child
		}
		return nil
	}
	t.appliedLocked(path, mode == Recursive)
	if mode != Recursive {
		return nil
	}
	return append([]chan zk.Event(nil), t.oneShot[oneShotKey{path, ChildWatch}]...)
}

// FireDisplaced fires those of the child watches of path a recursive mode
// displaced (see AddAnswered) that are still waiting, if the answer of
// the read that set them again shows a change after zxid, when they were
// displaced: a deletion, or a child created or deleted.
func (t *Table) FireDisplaced(path string, displaced []chan zk.Event, zxid int64, code int32, body []byte) {
	var typ zk.EventType
	switch code {
	case wire.CodeNoNode:
		typ = zk.EventNodeDeleted
	case wire.CodeOK:
		r := wire.JuteReader{B: body}
		r.Strings()
		if stat := r.Stat(); r.Err != nil || stat.Pzxid <= zxid {
			return
		}
		typ = zk.EventNodeChildrenChanged
	default:
		return
	}
	k := oneShotKey{path, ChildWatch}
	t.mu.Lock()
	var fired []chan zk.Event
	list := t.oneShot[k]
	for _, ch := range displaced {
		for i, x := range list {
			if x == ch {
				list = append(list[:i:i], list[i+1:]...)
				fired = append(fired, ch)
				break
			}
		}
	}
	if len(list) == 0 {
		delete(t.oneShot, k)
	} else {
		t.oneShot[k] = list
	}
	t.mu.Unlock()
	for _, ch := range fired {
		ch <- zk.Event{Type: typ, State: zk.StateSyncConnected, Path: path}
		close(ch)
	}
}
