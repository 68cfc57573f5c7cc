package framework

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// watchKind is the kind of a one-shot watch, as the server keeps them.
type watchKind int8

const (
	watchData  watchKind = iota // getData, or exists on a node that exists
	watchExist                  // exists on a node that does not
	watchChild                  // getChildren
)

// oneShotKey names the one-shot watches of one path and kind.
type oneShotKey struct {
	path string // server path
	kind watchKind
}

// watchTable is every watch the client has set: one-shot watches of the
// legacy calls (GetW, ExistsW, ChildrenW) and the persistent watches of
// Watch. The server sends one notification per event and connection,
// whatever watches match; the table fans it out as ZooKeeper's Java client
// does. It belongs to one session: a new one ends the one-shot watches
// and keeps the persistent ones, which the client sets again.
type watchTable struct {
	lastZxid atomic.Int64                   // of the replies read, for setWatches2
	unsure   atomic.Int64                   // the zxid from which the last restore was not answered; 0: none
	onNode   atomic.Pointer[func(zk.Event)] // told every notification

	mu         sync.Mutex
	session    int64
	oneShot    map[oneShotKey][]chan zk.Event
	persistent map[string][]*Watch   // by server path
	recursive  map[string][]*Watch   // by server path
	probes     []*probe              // of the ChangedSince calls under way
	modes      map[string]*pathModes // what the server holds, by path (see servermodes.go)
	// The paths whose data manager held the recursive mode as of the
	// last answer read, whose persistent Watches it serves (covered.go).
	appliedRecursive map[string]struct{}
	// The server's persistent watches no Watch needs (see watchremove.go):
	// lingering until their timer fires, then being removed.
	lingering map[watchKey]*linger
	removing  map[watchKey]chan struct{} // closed once removed
	restoring bool                       // the persistent watches are not back on the connection yet
	remove    func(watchKey)             // removes the server's watch
	closed    bool
}

// linger is the wait of a lingering watch before its removal.
type linger struct{ timer *time.Timer }

// watchKey names the server's persistent watch of one path and mode.
type watchKey struct {
	path string // server path
	mode WatchMode
}

func newWatchTable(onNode func(zk.Event), remove func(watchKey)) *watchTable {
	t := &watchTable{
		oneShot:          make(map[oneShotKey][]chan zk.Event),
		persistent:       make(map[string][]*Watch),
		recursive:        make(map[string][]*Watch),
		modes:            make(map[string]*pathModes),
		lingering:        make(map[watchKey]*linger),
		appliedRecursive: make(map[string]struct{}),
		removing:         make(map[watchKey]chan struct{}),
		remove:           remove,
	}
	t.onNode.Store(&onNode)
	return t
}

// restoreFrom returns the zxid to set the watches again relative to: the
// last zxid seen, unless an earlier restore from an older one was never
// answered.
func (t *watchTable) restoreFrom() int64 {
	if z := t.unsure.Load(); z != 0 {
		return z
	}
	z := t.lastZxid.Load()
	t.unsure.Store(z)
	return z
}

// restored records that the restore relative to zxid was answered.
func (t *watchTable) restored(zxid int64) { t.unsure.CompareAndSwap(zxid, 0) }

// sawZxid records the zxid of a reply.
func (t *watchTable) sawZxid(zxid int64) {
	for {
		old := t.lastZxid.Load()
		if zxid <= old || t.lastZxid.CompareAndSwap(old, zxid) {
			return
		}
	}
}

// addOneShot registers a one-shot watch as the reply of its read is
// read, and returns the channel that receives its event. The server has
// set it, or a mode of its path brings its events (see servermodes.go).
func (t *watchTable) addOneShot(path string, kind watchKind) <-chan zk.Event {
	ch := make(chan zk.Event, 1)
	t.mu.Lock()
	defer t.mu.Unlock()
	k := oneShotKey{path, kind}
	t.oneShot[k] = append(t.oneShot[k], ch)
	return ch
}

// addPersistent registers w, whose watch the server has just set.
func (t *watchTable) addPersistent(w *Watch) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.byMode(w.mode)
	m[w.serverPath] = append(m[w.serverPath], w)
}

// adopt registers w without a request if the server has the watch of its
// path and mode on the current connection already: another Watch's, or a
// lingering one; or, for a persistent Watch and a server that keeps one
// mode per path (not apart), the recursive watch of its path, which then
// serves it (see covered.go). Otherwise it returns a removal of that
// watch under way, to wait for before setting it again, or nil: set it.
func (t *watchTable) adopt(w *Watch, apart bool) (adopted bool, removing <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := watchKey{w.serverPath, w.mode}
	if ok, removing := t.adoptableLocked(k, apart); !ok {
		return false, removing
	}
	if l, ok := t.lingering[k]; ok {
		l.timer.Stop() // if it fired already, expire finds it adopted
		delete(t.lingering, k)
	}
	m := t.byMode(w.mode)
	m[w.serverPath] = append(m[w.serverPath], w)
	return true, nil
}

// adoptable reports whether adopt would adopt a Watch of k now.
func (t *watchTable) adoptable(k watchKey, apart bool) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	ok, _ := t.adoptableLocked(k, apart)
	return ok
}

// adoptableLocked is adoptable, and the removal under way if any; t.mu
// held. While a reconnect's restore is unanswered the server has not the
// watches back: a Watch of its own is then ordered before its reads.
func (t *watchTable) adoptableLocked(k watchKey, apart bool) (bool, <-chan struct{}) {
	if done, ok := t.removing[k]; ok {
		return false, done
	}
	if t.restoring || t.closed {
		return false, nil
	}
	_, lingers := t.lingering[k]
	if lingers || len(t.byMode(k.mode)[k.path]) > 0 {
		return true, nil
	}
	return !apart && k.mode == WatchPersistent && t.recursiveHeldLocked(k.path), nil
}

// removePersistent forgets w; if no watch of its path and mode is left,
// the server's lingers (if onServer: the server has it).
func (t *watchTable) removePersistent(w *Watch, onServer bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.byMode(w.mode)
	list := m[w.serverPath]
	found := false
	for i, x := range list {
		if x == w {
			list = append(list[:i:i], list[i+1:]...)
			found = true
			break
		}
	}
	if !found {
		return
	}
	if len(list) > 0 {
		m[w.serverPath] = list
		return
	}
	delete(m, w.serverPath)
	if onServer {
		t.lingerLocked(watchKey{w.serverPath, w.mode})
	}
}

// unneeded is told of a server's watch that a failed Watch set: it
// lingers, unless a Watch has it or it lingers already. If a removal is
// under way, whether the server's watch came before it (and is gone) or
// after is unknown: it is left, neither taken over nor removed (a removal
// now could take a Watch's set since), and goes with the connection.
func (t *watchTable) unneeded(k watchKey) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, removing := t.removing[k]; removing {
		return
	}
	if len(t.byMode(k.mode)[k.path]) == 0 {
		if _, ok := t.lingering[k]; !ok {
			t.lingerLocked(k)
		}
	}
}

// lingerLocked starts the linger of the server's watch of k; t.mu held.
func (t *watchTable) lingerLocked(k watchKey) {
	if t.closed {
		return
	}
	l := &linger{}
	l.timer = time.AfterFunc(watchLinger, func() { t.expire(k, l) })
	t.lingering[k] = l
}

// expire removes the server's watch of k once its linger ends, unless it
// was adopted or dropped meanwhile. Watches of k wait for the removal.
func (t *watchTable) expire(k watchKey, l *linger) {
	t.mu.Lock()
	if t.lingering[k] != l {
		t.mu.Unlock()
		return
	}
	done := t.removingLocked(k)
	t.mu.Unlock()
	t.runRemoval(k, done)
}

// expireNow ends the linger of the server's watch of k at once, if it
// lingers (Hooks.CloseWatchAtOnce): a Watch of k from now on waits for
// the removal, which goes on in the background, and sets its own.
func (t *watchTable) expireNow(k watchKey) {
	t.mu.Lock()
	l, ok := t.lingering[k]
	if !ok {
		t.mu.Unlock()
		return
	}
	l.timer.Stop() // if it fired already, expire finds it gone
	done := t.removingLocked(k)
	t.mu.Unlock()
	go t.runRemoval(k, done) // ends when the removal is answered or given up (connection timeout)
}

// removingLocked moves k from lingering to removing; t.mu held.
func (t *watchTable) removingLocked(k watchKey) chan struct{} {
	delete(t.lingering, k)
	done := make(chan struct{})
	t.removing[k] = done
	return done
}

// runRemoval removes the server's watch of k, then lets the Watches of k
// that wait for it (done) go on.
func (t *watchTable) runRemoval(k watchKey, done chan struct{}) {
	t.remove(k)
	t.mu.Lock()
	delete(t.removing, k)
	t.mu.Unlock()
	close(done)
}

// dropLingeringLocked forgets the lingering watches: the connection
// ended. t.mu held.
func (t *watchTable) dropLingeringLocked() {
	for k, l := range t.lingering {
		l.timer.Stop()
		delete(t.lingering, k)
	}
}

// watched reports whether the client has any watch of path.
func (t *watchTable) watched(path string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, kind := range []watchKind{watchData, watchExist, watchChild} {
		if len(t.oneShot[oneShotKey{path, kind}]) > 0 {
			return true
		}
	}
	for _, mode := range []WatchMode{WatchPersistent, WatchRecursive} {
		if _, lingers := t.lingering[watchKey{path, mode}]; lingers {
			return true
		}
	}
	return len(t.persistent[path]) > 0 || len(t.recursive[path]) > 0
}

// modeWatched reports whether the server has a persistent watch of path
// and mode for the client: a Watch's, or a lingering one.
func (t *watchTable) modeWatched(path string, mode WatchMode) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, lingers := t.lingering[watchKey{path, mode}]
	return lingers || len(t.byMode(mode)[path]) > 0
}

func (t *watchTable) byMode(mode WatchMode) map[string][]*Watch {
	if mode == WatchRecursive {
		return t.recursive
	}
	return t.persistent
}

// notify dispatches a notification's body (type, state, path). It runs on
// the goroutine that reads the connection and never blocks.
func (t *watchTable) notify(body []byte) error {
	ev, err := wire.ParseNotification(body)
	if err != nil {
		return err
	}
	t.dispatch(ev)
	return nil
}

func (t *watchTable) dispatch(ev zk.Event) {
	var fired []chan zk.Event
	var watchers []*Watch
	t.mu.Lock()
	for _, kind := range firedKinds(ev.Type) {
		k := oneShotKey{ev.Path, kind}
		fired = append(fired, t.oneShot[k]...)
		delete(t.oneShot, k)
	}
	own, parents := t.persistentFor(ev)
	watchers = append(watchers, own...)
	parents = append([]*Watch(nil), parents...)
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
	for _, w := range watchers {
		w.push(WatchEvent{Type: WatchEventType(ev.Type), Path: w.clientPath(ev.Path)})
	}
	for _, w := range parents { // served from the recursive mode (covered.go)
		w.push(WatchEvent{Type: NodeChildrenChanged, Path: w.clientPath(w.serverPath)})
	}
	(*t.onNode.Load())(ev)
}

// firedKinds is which one-shot watches an event ends: the rules of
// ZooKeeper's own client (ZKWatchManager).
func firedKinds(typ zk.EventType) []watchKind {
	switch typ {
	case zk.EventNodeCreated, zk.EventNodeDataChanged:
		return []watchKind{watchData, watchExist}
	case zk.EventNodeChildrenChanged:
		return []watchKind{watchChild}
	case zk.EventNodeDeleted:
		return []watchKind{watchData, watchExist, watchChild}
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

// restoreSet is what setWatches2 sets again on a connection.
type restoreSet struct {
	data, exist, child, persistent, recursive []string
	sameSession                               bool
	watchers                                  []*Watch // every persistent watch, to tell when it is back
}

// connected begins a connection of session id: on a new session the
// one-shot watches end (their channels get EventNotWatching, as
// go-zookeeper sends); what is left is returned, to be set again.
func (t *watchTable) connected(id int64) restoreSet {
	t.mu.Lock()
	same := t.session == id
	var ended map[oneShotKey][]chan zk.Event
	if !same {
		t.session = id
		ended, t.oneShot = t.oneShot, make(map[oneShotKey][]chan zk.Event)
	}
	rs := restoreSet{sameSession: same}
	for k := range t.oneShot {
		switch k.kind {
		case watchData:
			rs.data = append(rs.data, k.path)
		case watchExist:
			rs.exist = append(rs.exist, k.path)
		case watchChild:
			rs.child = append(rs.child, k.path)
		}
	}
	for p, list := range t.persistent {
		rs.persistent = append(rs.persistent, p)
		rs.watchers = append(rs.watchers, list...)
	}
	for p, list := range t.recursive {
		rs.recursive = append(rs.recursive, p)
		rs.watchers = append(rs.watchers, list...)
	}
	t.dropLingeringLocked() // not on the new connection
	t.modes = make(map[string]*pathModes)
	clear(t.appliedRecursive)
	t.restoring = len(rs.watchers) > 0
	t.mu.Unlock()
	endOneShots(ended, zk.ErrSessionExpired)
	for _, w := range rs.watchers {
		if w.onEvent != nil {
			w.push(WatchEvent{Type: WatchInterrupted, Path: w.path})
		}
	}
	return rs
}

// back records that the persistent watches are set again on the
// connection (or ended, for a server that cannot take them).
func (t *watchTable) back() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.restoring = false
}

// close ends every watch: the client is closed.
func (t *watchTable) close() {
	t.mu.Lock()
	t.closed = true
	t.dropLingeringLocked()
	ended := t.oneShot
	t.oneShot = make(map[oneShotKey][]chan zk.Event)
	var watchers []*Watch
	for _, m := range []map[string][]*Watch{t.persistent, t.recursive} {
		for p, list := range m {
			watchers = append(watchers, list...)
			delete(m, p)
		}
	}
	t.mu.Unlock()
	endOneShots(ended, zk.ErrClosing)
	for _, w := range watchers {
		w.end(ErrClosed)
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
