package framework

import (
	"context"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework/internal/watches"
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
	var rs watches.RestoreSet
	var stated []statedPath
	for _, p := range present {
		sp, err := c.serverPath(p)
		if err != nil {
			return nil, opError("changed_since", p, err)
		}
		persistent, recursive := c.watches.ModeWatched(sp, watches.Persistent), c.watches.ModeWatched(sp, watches.Recursive)
		switch {
		case persistent:
			stated = append(stated, statedPath{path: sp, present: true})
		case recursive: // in the server's data watches only
			stated = append(stated, statedPath{path: sp, present: true, childProbed: true})
			rs.Child = append(rs.Child, sp)
		default:
			rs.Data = append(rs.Data, sp)
			rs.Child = append(rs.Child, sp)
		}
	}
	for _, p := range absent {
		sp, err := c.serverPath(p)
		if err != nil {
			return nil, opError("changed_since", p, err)
		}
		if c.watches.ModeWatched(sp, watches.Persistent) || c.watches.ModeWatched(sp, watches.Recursive) {
			stated = append(stated, statedPath{path: sp})
			continue
		}
		rs.Exist = append(rs.Exist, sp)
	}
	if len(rs.Data)+len(rs.Child)+len(rs.Exist)+len(stated) == 0 {
		return nil, nil
	}
	first := absent
	if len(present) > 0 {
		first = present
	}
	var batches []watches.Batch
	if len(rs.Data)+len(rs.Child)+len(rs.Exist) > 0 {
		batches = watches.SetWatchesBatches(zxid, rs)
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
// are left out of it (see WriteWatches).
func (c *Client) changedSinceOnce(conn *zk.Conn, zxid int64, rs watches.RestoreSet, batches []watches.Batch, stated []statedPath) ([]WatchEvent, error) {
	p := c.watches.AddProbe(rs)
	defer c.watches.RemoveProbe(p)
	for _, b := range batches {
		b.LeftOut = p.Leave
		if err := c.carry(conn, c.watchesRequest(wire.OpSetWatches, b)); err != nil {
			return nil, err
		}
	}
	// Every notification the requests caused came before their replies.
	reported := c.reported(p)
	for _, sp := range toRead(p.Left(), stated) {
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

// toRead returns stated and the paths left out of the probe's requests
// (left), to read: a path whose children were to be asked and were not is
// read for them.
func toRead(left watches.RestoreSet, stated []statedPath) []statedPath {
	if len(left.Data)+len(left.Exist)+len(left.Child) == 0 {
		return stated
	}
	children := make(map[string]bool, len(left.Child))
	for _, sp := range left.Child {
		children[sp] = true
	}
	out := make([]statedPath, 0, len(stated)+len(left.Data)+len(left.Exist))
	for _, sp := range stated {
		sp.childProbed = sp.childProbed && !children[sp.path]
		out = append(out, sp)
	}
	for _, sp := range left.Data { // its children were left out too
		out = append(out, statedPath{path: sp, present: true})
	}
	for _, sp := range left.Exist {
		out = append(out, statedPath{path: sp})
	}
	return out
}

// reported is the notifications a probe recorded, as ChangedSince's
// events.
func (c *Client) reported(p *watches.Probe) []WatchEvent {
	evs := p.Events()
	out := make([]WatchEvent, len(evs))
	for i, ev := range evs {
		out[i] = WatchEvent{Type: WatchEventType(ev.Type), Path: c.clientPath(ev.Path)}
	}
	return out
}
