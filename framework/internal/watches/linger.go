package watches

import "time"

// The last Watch of a path and mode to close leaves the server's watch
// lingering for Linger: a Watch of the same path and mode in that time
// takes it over without a request. A recipe that closes its watch and
// sets it again at once (a latch or a lock of one term after another, the
// common loop) would otherwise pay an addWatch and a removeWatches each
// time. Then it is removed, unless the connection has ended meanwhile: a
// new connection sets again only the watches some Watch needs.

// Linger is how long the server's watch outlives its last Watch.
const Linger = time.Second

// linger is the wait of a lingering watch before its removal.
type linger struct{ timer *time.Timer }

// Adopt registers s without a request if the server has the watch of its
// path and mode on the current connection already: another Watch's, or a
// lingering one; or, for a persistent Watch and a server that keeps one
// mode per path (not apart), the recursive watch of its path, which then
// serves it (see covered.go). Otherwise it returns a removal of that
// watch under way, to wait for before setting it again, or nil: set it.
func (t *Table) Adopt(s Subscriber, apart bool) (adopted bool, removing <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := s.Key()
	if ok, removing := t.adoptableLocked(k, apart); !ok {
		return false, removing
	}
	if l, ok := t.lingering[k]; ok {
		l.timer.Stop() // if it fired already, expire finds it adopted
		delete(t.lingering, k)
	}
	m := t.byMode(k.Mode)
	m[k.Path] = append(m[k.Path], s)
	return true, nil
}

// Adoptable reports whether Adopt would adopt a Watch of k now.
func (t *Table) Adoptable(k Key, apart bool) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	ok, _ := t.adoptableLocked(k, apart)
	return ok
}

// adoptableLocked is Adoptable, and the removal under way if any; t.mu
// held. While a reconnect's restore is unanswered the server has not the
// watches back: a Watch of its own is then ordered before its reads.
func (t *Table) adoptableLocked(k Key, apart bool) (bool, <-chan struct{}) {
	if done, ok := t.removing[k]; ok {
		return false, done
	}
	if t.restoring || t.closed {
		return false, nil
	}
	_, lingers := t.lingering[k]
	if lingers || len(t.byMode(k.Mode)[k.Path]) > 0 {
		return true, nil
	}
	return !apart && k.Mode == Persistent && t.recursiveHeldLocked(k.Path), nil
}

// RemovePersistent forgets s; if no watch of its path and mode is left,
// the server's lingers (if onServer: the server has it).
func (t *Table) RemovePersistent(s Subscriber, onServer bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := s.Key()
	m := t.byMode(k.Mode)
	list := m[k.Path]
	found := false
	for i, x := range list {
		if x == s {
			list = append(list[:i:i], list[i+1:]...)
			found = true
			break
		}
	}
	if !found {
		return
	}
	if len(list) > 0 {
		m[k.Path] = list
		return
	}
	delete(m, k.Path)
	if onServer {
		t.lingerLocked(k)
	}
}

// Unneeded is told of a server's watch that a failed Watch set: it
// lingers, unless a Watch has it or it lingers already. If a removal is
// under way, whether the server's watch came before it (and is gone) or
// after is unknown: it is left, neither taken over nor removed (a removal
// now could take a Watch's set since), and goes with the connection.
func (t *Table) Unneeded(k Key) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, removing := t.removing[k]; removing {
		return
	}
	if len(t.byMode(k.Mode)[k.Path]) == 0 {
		if _, ok := t.lingering[k]; !ok {
			t.lingerLocked(k)
		}
	}
}

// lingerLocked starts the linger of the server's watch of k; t.mu held.
func (t *Table) lingerLocked(k Key) {
	if t.closed {
		return
	}
	l := &linger{}
	l.timer = time.AfterFunc(Linger, func() { t.expire(k, l) })
	t.lingering[k] = l
}

// expire removes the server's watch of k once its linger ends, unless it
// was adopted or dropped meanwhile. Watches of k wait for the removal.
func (t *Table) expire(k Key, l *linger) {
	t.mu.Lock()
	if t.lingering[k] != l {
		t.mu.Unlock()
		return
	}
	done := t.removingLocked(k)
	t.mu.Unlock()
	t.runRemoval(k, done)
}

// ExpireNow ends the linger of the server's watch of k at once, if it
// lingers (Hooks.CloseWatchAtOnce): a Watch of k from now on waits for
// the removal, which goes on in the background, and sets its own.
func (t *Table) ExpireNow(k Key) {
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
func (t *Table) removingLocked(k Key) chan struct{} {
	delete(t.lingering, k)
	done := make(chan struct{})
	t.removing[k] = done
	return done
}

// runRemoval removes the server's watch of k, then lets the Watches of k
// that wait for it (done) go on.
func (t *Table) runRemoval(k Key, done chan struct{}) {
	t.remove(k)
	t.mu.Lock()
	delete(t.removing, k)
	t.mu.Unlock()
	close(done)
}

// dropLingeringLocked forgets the lingering watches: the connection
// ended. t.mu held.
func (t *Table) dropLingeringLocked() {
	for k, l := range t.lingering {
		l.timer.Stop()
		delete(t.lingering, k)
	}
}

// Settled reports whether no server watch of path lingers or is being
// removed: the removals of its closed Watches have run.
func (t *Table) Settled(path string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, mode := range []Mode{Persistent, Recursive} {
		k := Key{path, mode}
		_, lingers := t.lingering[k]
		_, removing := t.removing[k]
		if lingers || removing {
			return false
		}
	}
	return true
}
