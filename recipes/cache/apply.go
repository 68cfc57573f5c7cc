package cache

import (
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// Every node the cache holds is an incarnation (its Czxid) that the
// server created under the incarnation of its parent that the cache
// holds. So when the cache learns that an incarnation is gone (a read
// finds its path missing, or another incarnation there: the reads of a
// path are applied in order, so that one is the later), all it holds
// below it is gone too, since the server deletes children before their
// parent, and every Deleted the cache tells, deepest first, is one the
// server made. A parent's Created comes before its children's, its
// Deleted after theirs, and the events of each path follow the server's.
//
// A new incarnation, of Czxid z, is placed under the parent incarnation
// P the cache holds (Czxid p, Pzxid q as of P's last read) when
// p ≤ z ≤ q: P lived from p until its read, after q ≥ z, so through the
// node's creation. When z < p the node was created under an earlier
// incarnation of the parent, deleted before P was created, so it is gone
// (it was read before P; P's list, read when P came into the cache, or
// the notification of a later creation, tells what is there now). When
// z > q the node was created after P's read, under P or under a later
// incarnation: only a read of the parent made after the node's tells
// which, so it is made in the same multi-read, after the node's
// (wantVerify). If P lives on, the node is P's child; a parent missing,
// or created after z, means the node is gone; a later parent created
// by z is the node's, and both are read again. A node not yet placed is
// not told: the cache never announces a node under an incarnation of its
// parent it was not created under, which would have it deleted with that
// parent while it lives.

// apply brings the tree to the reads of a round, parents before
// children, and emits the differences. The reads of a round go at once,
// in no known order, so the lists come last: a list read before a
// child's read found the child missing names it again, and a child gone
// from the tree by then is read again; a list read after it names a
// child created since, which no one-shot watch may tell any more.
func (l *loop) apply(results []result) {
	for _, r := range results {
		switch {
		case r.err != nil:
			l.pend(r.path, r.want)
		case r.want&wantData == 0:
		case !r.exists:
			l.remove(r.path)
		default:
			l.applyData(r)
		}
	}
	for _, r := range results {
		if r.err == nil && r.want&wantList != 0 && r.listed {
			l.applyList(r)
		}
	}
}

// applyData applies a read that found the node.
func (l *loop) applyData(r result) {
	c := l.c
	old := c.tree.find(r.path)
	if old != nil {
		switch {
		case r.stat.Czxid == old.stat.Czxid:
			l.update(r, old)
			return
		case r.stat.Czxid < old.stat.Czxid:
			return // an older incarnation than the one held: nothing newer
		}
		l.remove(r.path) // deleted and created again while the cache looked away
	}
	if r.path == c.path || l.placed(r) {
		l.create(r)
	}
}

// placed tells whether the incarnation r read was created under the
// parent's incarnation the cache holds (see above); when it cannot tell
// yet, it pends the reads that will.
func (l *loop) placed(r result) bool {
	c := l.c
	parentPath := zkpath.Parent(r.path)
	parent := c.tree.find(parentPath)
	z := r.stat.Czxid
	switch {
	case parent == nil:
		// The parent's read lists this node once the parent is cached.
		l.pend(parentPath, wantData)
		return false
	case z < parent.stat.Czxid:
		return false // gone: created under an earlier parent
	case z <= parent.stat.Pzxid:
		return true
	}
	switch v := r.verify; {
	case v == nil || v.err != nil:
	case v.exists && v.stat.Czxid == parent.stat.Czxid:
		l.update(*v, parent) // the parent lived on after the node's read
		return true
	case !v.exists || z < v.stat.Czxid:
		l.pend(parentPath, wantData)
		return false // gone with the parent it was created under
	default:
		l.pend(parentPath, wantData) // the node's parent is one not yet held
	}
	l.pend(r.path, wantData|wantVerify)
	return false
}

// update applies a read of the incarnation held: a Changed if its data
// is later, a Stat alone if only its children moved. The node changes in
// place (store.set), the event gets copies.
func (l *loop) update(r result, n *node) {
	c := l.c
	if r.stat.Mzxid < n.stat.Mzxid || (r.stat.Mzxid == n.stat.Mzxid && r.stat.Pzxid <= n.stat.Pzxid) {
		return // nothing newer
	}
	old := n.entry(r.path)
	data := n.data
	changed := r.stat.Mzxid != n.stat.Mzxid
	if changed {
		data = c.stored(r.path, r.data)
	}
	c.tree.set(n, data, r.stat)
	if changed {
		c.emit(Event{Type: Changed, Path: r.path, Entry: n.entry(r.path), Old: old})
	}
}

// create adds a new incarnation, placed, and reads its children.
func (l *loop) create(r result) {
	c := l.c
	n := &node{data: c.stored(r.path, r.data), stat: r.stat}
	stored := c.tree.put(r.path, n)
	if !stored { // placed saw the parent cached, so never; its read places n
		l.pend(zkpath.Parent(r.path), wantData)
		return
	}
	c.emit(Event{Type: Created, Path: r.path, Entry: n.entry(r.path)})
	if r.stat.NumChildren > 0 || l.src.listsEveryNode() {
		l.pend(r.path, wantList)
	}
}

// applyList reads the children a node's list names and the cache lacks,
// and those it holds and the list lacks (their reads find them gone).
func (l *loop) applyList(r result) {
	fresh, gone, ok := l.c.tree.diff(r.path, r.children)
	if !ok {
		return
	}
	// After the load, a child the cache lacks was created after its
	// parent's read, as a rule: its parent is read after it (placed).
	w := wantData
	if l.loaded {
		w |= wantVerify
	}
	for _, name := range fresh {
		l.pend(zkpath.Join(r.path, name), w)
	}
	for _, name := range gone {
		l.pend(zkpath.Join(r.path, name), wantData)
	}
}

// remove deletes a node that is gone, with its subtree, deepest first.
func (l *loop) remove(p string) {
	c := l.c
	gone := c.tree.remove(p)
	for _, e := range gone {
		c.emit(Event{Type: Deleted, Path: e.Path, Old: e})
	}
}
