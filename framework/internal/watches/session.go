package watches

import "github.com/go-zookeeper/zk"

// RestoreSet is what setWatches2 sets again on a connection.
type RestoreSet struct {
	Data, Exist, Child, Persistent, Recursive []string
	SameSession                               bool
	Watchers                                  []Subscriber // every persistent watch, to tell when it is back
}

// Connected begins a connection of session id: on a new session the
// one-shot watches end (their channels get EventNotWatching, as
// go-zookeeper sends); what is left is returned, to be set again. Each
// persistent watch is told Interrupted.
func (t *Table) Connected(id int64) RestoreSet {
	t.mu.Lock()
	same := t.session == id
	var ended map[oneShotKey][]chan zk.Event
	if !same {
		t.session = id
		ended, t.oneShot = t.oneShot, make(map[oneShotKey][]chan zk.Event)
	}
	rs := RestoreSet{SameSession: same}
	for k := range t.oneShot {
		switch k.kind {
		case DataWatch:
			rs.Data = append(rs.Data, k.path)
		case ExistWatch:
			rs.Exist = append(rs.Exist, k.path)
		case ChildWatch:
			rs.Child = append(rs.Child, k.path)
		}
	}
	for p, list := range t.persistent {
		rs.Persistent = append(rs.Persistent, p)
		rs.Watchers = append(rs.Watchers, list...)
	}
	for p, list := range t.recursive {
		rs.Recursive = append(rs.Recursive, p)
		rs.Watchers = append(rs.Watchers, list...)
	}
	t.dropLingeringLocked() // not on the new connection
	t.modes = make(map[string]*pathModes)
	clear(t.appliedRecursive)
	t.restoring = len(rs.Watchers) > 0
	t.mu.Unlock()
	endOneShots(ended, zk.ErrSessionExpired)
	for _, s := range rs.Watchers {
		s.Deliver(Event{Type: Interrupted, Path: s.Key().Path})
	}
	return rs
}

// Empty reports whether rs sets nothing again.
func (rs RestoreSet) Empty() bool {
	return len(rs.Data)+len(rs.Exist)+len(rs.Child)+len(rs.Persistent)+len(rs.Recursive) == 0
}

// Back records that the persistent watches are set again on the
// connection (or ended, for a server that cannot take them).
func (t *Table) Back() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.restoring = false
}

// Close ends every watch: the client is closed. The one-shot watches get
// EventNotWatching with zk.ErrClosing, the persistent ones end with err.
func (t *Table) Close(err error) {
	t.mu.Lock()
	t.closed = true
	t.dropLingeringLocked()
	ended := t.oneShot
	t.oneShot = make(map[oneShotKey][]chan zk.Event)
	var watchers []Subscriber
	for _, m := range []map[string][]Subscriber{t.persistent, t.recursive} {
		for p, list := range m {
			watchers = append(watchers, list...)
			delete(m, p)
		}
	}
	t.mu.Unlock()
	endOneShots(ended, zk.ErrClosing)
	for _, s := range watchers {
		s.End(err)
	}
}

func endOneShots(ended map[oneShotKey][]chan zk.Event, err error) {
	for k, list := range ended {
		for _, ch := range list {
			ch <- zk.Event{Type: zk.EventNotWatching, State: zk.StateDisconnected, Path: k.path, Err: err}
			close(ch)
		}
	}
}
