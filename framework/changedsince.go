package framework

import (
	"context"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// ChangedSince asks the server which nodes changed after zxid, in one
// setWatches request per 128 KiB of paths, which every server since 3.4
// answers: the server compares each node's zxids with zxid, as it does
// for the watches a client sets again after a reconnect. For each of
// present (nodes the caller holds) it reports NodeDeleted if the node is
// gone, NodeDataChanged if its data changed and NodeChildrenChanged if
// its list of children did; for each of absent, NodeCreated if the node
// now exists. What did not change is not reported: a cache catches up
// after a reconnect with reads in proportion to what changed, not to
// what it holds. Pass the Zxid of a WatchResumed or WatchSessionChanged
// event.
//
// The server keeps a one-shot watch of each path it did not report until
// the watch fires or the connection closes; its notification reaches the
// client's watches of that path (a recursive Watch of an ancestor gets
// it as it would anyway, and the server sends one notification for
// both), and nothing else. A one-shot watch of the client's own (GetW,
// ExistsW, ChildrenW) of a path reported may fire for the change
// reported, even if it was set after that change.
//
// A path the client has a persistent watch of is not asked with a
// one-shot watch: ZooKeeper 3.6 to 3.8 keep one mode per path and
// connection, and the one-shot watch would replace the persistent one
// (ZOOKEEPER-4466). It is read instead, and reported from its Stat. That
// is decided again as each request is written, so a Watch set while the
// call is under way is not replaced either.
func (c *Client) ChangedSince(ctx context.Context, zxid int64, present, absent []string) ([]WatchEvent, error) {
	var rs restoreSet
	var stated []statedPath
	for _, p := range present {
		sp, err := c.serverPath(p)
		if err != nil {
			return nil, opError("changed_since", p, err)
		}
		persistent, recursive := c.watches.modeWatched(sp, WatchPersistent), c.watches.modeWatched(sp, WatchRecursive)
		switch {
		case persistent:
			stated = append(stated, statedPath{path: sp, present: true})
		case recursive: // in the server's data watches only
			stated = append(stated, statedPath{path: sp, present: true, childProbed: true})
			rs.child = append(rs.child, sp)
		default:
			rs.data = append(rs.data, sp)
			rs.child = append(rs.child, sp)
		}
	}
	for _, p := range absent {
		sp, err := c.serverPath(p)
		if err != nil {
			return nil, opError("changed_since", p, err)
		}
		if c.watches.modeWatched(sp, WatchPersistent) || c.watches.modeWatched(sp, WatchRecursive) {
			stated = append(stated, statedPath{path: sp})
			continue
		}
		rs.exist = append(rs.exist, sp)
	}
	if len(rs.data)+len(rs.child)+len(rs.exist)+len(stated) == 0 {
		return nil, nil
	}
	first := absent
	if len(present) > 0 {
		first = present
	}
	var batches []watchBatch
	if len(rs.data)+len(rs.child)+len(rs.exist) > 0 {
		batches = setWatchesBatches(zxid, rs)
	}
	c.mu.Lock()
	s := c.seams
	c.mu.Unlock()
	return retry(ctx, c, "changed_since", first[0], func(conn *zk.Conn, _ *Session) ([]WatchEvent, error) {
		s.probeGate()
		return c.changedSinceOnce(conn, zxid, rs, batches, stated)
	})
}

// changedSinceOnce is one try of ChangedSince: the probes of rs, in
// batches, then the reads of stated, and of the paths a mode was set at
// by the time their probe was written (a Watch set meanwhile), which
// are left out of it (see writeWatches).
func (c *Client) changedSinceOnce(conn *zk.Conn, zxid int64, rs restoreSet, batches []watchBatch, stated []statedPath) ([]WatchEvent, error) {
	p := c.watches.addProbe(rs)
	defer c.watches.removeProbe(p)
	for _, b := range batches {
		b.leftOut = p.leave
		if err := c.carry(conn, c.watchesRequest(wire.OpSetWatches, b)); err != nil {
			return nil, err
		}
	}
	// Every notification the requests caused came before their replies.
	reported := p.reported(c)
	for _, sp := range p.toRead(stated) {
		evs, err := sp.changedSince(conn, zxid)
		if err != nil {
			return nil, err
		}
		for _, ev := range evs {
			reported = append(reported, WatchEvent{Type: ev, Path: c.clientPath(sp.path)})
		}
	}
	return reported, nil
}

// statedPath is a path ChangedSince reads instead of watching.
type statedPath struct {
	path        string // server path
	present     bool   // the caller holds the node
	childProbed bool   // its children are asked with a child watch
}

// changedSince reads the node's Stat and returns the events a probe
// would have had.
func (sp statedPath) changedSince(conn *zk.Conn, zxid int64) ([]WatchEventType, error) {
	ok, stat, err := conn.Exists(sp.path)
	switch {
	case err != nil:
		return nil, err
	case !ok && sp.present:
		return []WatchEventType{NodeDeleted}, nil
	case ok && !sp.present:
		return []WatchEventType{NodeCreated}, nil
	case !ok:
		return nil, nil
	}
	var evs []WatchEventType
	if stat.Mzxid > zxid {
		evs = append(evs, NodeDataChanged)
	}
	if stat.Pzxid > zxid && !sp.childProbed {
		evs = append(evs, NodeChildrenChanged)
	}
	return evs, nil
}

// setWatchesBatches divides rs (no persistent watches) into setWatches
// requests: setWatches is setWatches2 without its two last lists.
func setWatchesBatches(zxid int64, rs restoreSet) []watchBatch {
	batches := restoreBatches(zxid, rs)
	for i := range batches {
		batches[i].legacy = true
	}
	return batches
}

// probe collects the notifications of a ChangedSince: those of the
// one-shot watches it asked for.
type probe struct {
	mu     sync.Mutex
	asked  map[oneShotKey]bool
	events []zk.Event
	left   restoreSet // left out of the requests as they were written
}

// leave records paths left out of a request as it was written: they are
// not asked. It runs on the goroutine that writes the connection.
func (p *probe) leave(left restoreSet) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range []struct {
		paths []string
		kind  watchKind
	}{{left.data, watchData}, {left.exist, watchExist}, {left.child, watchChild}} {
		for _, sp := range l.paths {
			delete(p.asked, oneShotKey{sp, l.kind})
		}
	}
	p.left.data = append(p.left.data, left.data...)
	p.left.exist = append(p.left.exist, left.exist...)
	p.left.child = append(p.left.child, left.child...)
}

// toRead returns stated and the paths left out of the requests, to read:
// a path whose children were to be asked and were not is read for them.
func (p *probe) toRead(stated []statedPath) []statedPath {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.left.data)+len(p.left.exist)+len(p.left.child) == 0 {
		return stated
	}
	children := make(map[string]bool, len(p.left.child))
	for _, sp := range p.left.child {
		children[sp] = true
	}
	out := make([]statedPath, 0, len(stated)+len(p.left.data)+len(p.left.exist))
	for _, sp := range stated {
		sp.childProbed = sp.childProbed && !children[sp.path]
		out = append(out, sp)
	}
	for _, sp := range p.left.data { // its children were left out too
		out = append(out, statedPath{path: sp, present: true})
	}
	for _, sp := range p.left.exist {
		out = append(out, statedPath{path: sp})
	}
	return out
}

// note records ev if it answers a watch the probe asked for. A deleted
// node answers its data and its child watch, each with a notification:
// it is recorded once.
func (p *probe) note(ev zk.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	answered := false
	for _, kind := range firedKinds(ev.Type) {
		k := oneShotKey{ev.Path, kind}
		if p.asked[k] {
			delete(p.asked, k)
			answered = true
		}
	}
	if answered {
		p.events = append(p.events, ev)
	}
}

func (p *probe) reported(c *Client) []WatchEvent {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]WatchEvent, len(p.events))
	for i, ev := range p.events {
		out[i] = WatchEvent{Type: WatchEventType(ev.Type), Path: c.clientPath(ev.Path)}
	}
	return out
}

func (t *watchTable) addProbe(rs restoreSet) *probe {
	p := &probe{asked: make(map[oneShotKey]bool, len(rs.data)+len(rs.child)+len(rs.exist))}
	for _, sp := range rs.data {
		p.asked[oneShotKey{sp, watchData}] = true
	}
	for _, sp := range rs.child {
		p.asked[oneShotKey{sp, watchChild}] = true
	}
	for _, sp := range rs.exist {
		p.asked[oneShotKey{sp, watchExist}] = true
	}
	t.mu.Lock()
	t.probes = append(t.probes, p)
	t.mu.Unlock()
	return p
}

func (t *watchTable) removeProbe(p *probe) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, q := range t.probes {
		if q == p {
			t.probes = append(t.probes[:i], t.probes[i+1:]...)
			return
		}
	}
}
