package watches

import (
	"sync"
	"sync/atomic"

	"github.com/go-zookeeper/zk"
)

// Kind is the kind of a one-shot watch, as the server keeps them.
type Kind int8

// The kinds of one-shot watches.
const (
	DataWatch  Kind = iota // getData, or exists on a node that exists
	ExistWatch             // exists on a node that does not
	ChildWatch             // getChildren
)

// oneShotKey names the one-shot watches of one path and kind.
type oneShotKey struct {
	path string // server path
	kind Kind
}

// Mode is the mode of a persistent watch, with addWatch's values: the
// framework's WatchMode converts to it.
type Mode int32

// The modes of persistent watches.
const (
	Persistent Mode = 0
	Recursive  Mode = 1
)

// Key names the server's persistent watch of one path and mode.
type Key struct {
	Path string // server path
	Mode Mode
}

// Table is every watch the client has set: one-shot watches of the
// legacy calls (GetW, ExistsW, ChildrenW) and the persistent watches of
// Watch. The server sends one notification per event and connection,
// whatever watches match; the table fans it out as ZooKeeper's Java client
// does. It belongs to one session: a new one ends the one-shot watches
// and keeps the persistent ones, which the client sets again.
type Table struct {
	lastZxid atomic.Int64                   // of the replies read, for setWatches2
	unsure   atomic.Int64                   // the zxid from which the last restore was not answered; 0: none
	onNode   atomic.Pointer[func(zk.Event)] // told every notification

	mu         sync.Mutex
	session    int64
	oneShot    map[oneShotKey][]chan zk.Event
	persistent map[string][]Subscriber // by server path
	recursive  map[string][]Subscriber // by server path
	probes     []*Probe                // of the ChangedSince calls under way
	modes      map[string]*pathModes   // what the server holds, by path (see servermodes.go)
	// The paths whose data manager held the recursive mode as of the
	// last answer read, whose persistent Watches it serves (covered.go).
	appliedRecursive map[string]struct{}
	// The server's persistent watches no Watch needs (see linger.go):
	// lingering until their timer fires, then being removed.
	lingering map[Key]*linger
	removing  map[Key]chan struct{} // closed once removed
	restoring bool                  // the persistent watches are not back on the connection yet
	remove    func(Key)             // removes the server's watch
	closed    bool
}

// New returns an empty table. onNode is told every notification, after
// the watches it is for; remove takes the server's watch of a key off the
// server, and returns once it is gone or has failed: it runs on the
// goroutine of a linger's timer.
func New(onNode func(zk.Event), remove func(Key)) *Table {
	t := &Table{
		oneShot:          make(map[oneShotKey][]chan zk.Event),
		persistent:       make(map[string][]Subscriber),
		recursive:        make(map[string][]Subscriber),
		modes:            make(map[string]*pathModes),
		lingering:        make(map[Key]*linger),
		appliedRecursive: make(map[string]struct{}),
		removing:         make(map[Key]chan struct{}),
		remove:           remove,
	}
	t.onNode.Store(&onNode)
	return t
}

// OnNode returns the func told every notification.
func (t *Table) OnNode() func(zk.Event) { return *t.onNode.Load() }

// SetOnNode replaces the func told every notification: tests count the
// notifications through it.
func (t *Table) SetOnNode(f func(zk.Event)) { t.onNode.Store(&f) }

// RestoreFrom returns the zxid to set the watches again relative to: the
// last zxid seen, unless an earlier restore from an older one was never
// answered.
func (t *Table) RestoreFrom() int64 {
	if z := t.unsure.Load(); z != 0 {
		return z
	}
	z := t.lastZxid.Load()
	t.unsure.Store(z)
	return z
}

// Restored records that the restore relative to zxid was answered.
func (t *Table) Restored(zxid int64) { t.unsure.CompareAndSwap(zxid, 0) }

// SawZxid records the zxid of a reply.
func (t *Table) SawZxid(zxid int64) {
	for {
		old := t.lastZxid.Load()
		if zxid <= old || t.lastZxid.CompareAndSwap(old, zxid) {
			return
		}
	}
}

// AddOneShot registers a one-shot watch as the reply of its read is
// read, and returns the channel that receives its event. The server has
// set it, or a mode of its path brings its events (see servermodes.go).
func (t *Table) AddOneShot(path string, kind Kind) <-chan zk.Event {
	ch := make(chan zk.Event, 1)
	t.mu.Lock()
	defer t.mu.Unlock()
	k := oneShotKey{path, kind}
	t.oneShot[k] = append(t.oneShot[k], ch)
	return ch
}

// AddPersistent registers s, whose watch the server has just set.
func (t *Table) AddPersistent(s Subscriber) {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := s.Key()
	m := t.byMode(k.Mode)
	m[k.Path] = append(m[k.Path], s)
}

// Watched reports whether the client has any watch of path.
func (t *Table) Watched(path string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, kind := range []Kind{DataWatch, ExistWatch, ChildWatch} {
		if len(t.oneShot[oneShotKey{path, kind}]) > 0 {
			return true
		}
	}
	for _, mode := range []Mode{Persistent, Recursive} {
		if _, lingers := t.lingering[Key{path, mode}]; lingers {
			return true
		}
	}
	return len(t.persistent[path]) > 0 || len(t.recursive[path]) > 0
}

// ModeWatched reports whether the server has a persistent watch of path
// and mode for the client: a Watch's, or a lingering one.
func (t *Table) ModeWatched(path string, mode Mode) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, lingers := t.lingering[Key{path, mode}]
	return lingers || len(t.byMode(mode)[path]) > 0
}

func (t *Table) byMode(mode Mode) map[string][]Subscriber {
	if mode == Recursive {
		return t.recursive
	}
	return t.persistent
}
