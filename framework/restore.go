package framework

import (
	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework/internal/watches"
	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// restoreWatches sets the client's watches again on a new connection of
// session id, whose connect response has just been read. One-shot watches
// go with setWatches, which every server since 3.4 knows: the server
// fires each whose node changed after the last zxid the client saw.
// Persistent watches go with setWatches2 (ZooKeeper 3.6+), which fires
// nothing for them: their receivers get WatchResumed or
// WatchSessionChanged once the server has them, and read again. A server
// without setWatches2 cannot take them: they end with ErrUnimplemented,
// and the one-shot watches go with setWatches. It runs from go-zookeeper's
// connecting goroutine and sends on one of its own; a request that fails
// with its connection is sent again on the next one.
//
// The last zxid is taken now, before any reply of the new connection is
// read, as ZooKeeper's own client takes it: a reply to a request that
// goes out before the restore carries a later zxid, and a one-shot watch
// restored relative to that would miss a change made in between. A
// connection that ends before its restore is answered leaves that zxid
// for the next: the watches were not on the server meanwhile, whatever
// the replies it carried said.
func (c *Client) restoreWatches(id int64, conn func() *zk.Conn) {
	rs := c.watches.Connected(id)
	zxid := c.watches.RestoreFrom()
	if rs.Empty() {
		c.watches.Restored(zxid)
		return
	}
	// Ends when go-zookeeper answers, with the connection at the latest.
	c.spawn(func() {
		c.mu.Lock()
		s := c.seams
		c.mu.Unlock()
		s.restoreGate()
		c.sendRestore(conn(), zxid, rs)
	})
}

func (c *Client) sendRestore(conn *zk.Conn, zxid int64, rs watches.RestoreSet) {
	if len(rs.Persistent)+len(rs.Recursive) > 0 {
		err := c.sendBatches(conn, wire.OpSetWatches2, watches.RestoreBatches(zxid, rs), func() {
			c.watches.Restored(zxid)
			c.watchesBack(rs, zxid)
		})
		if err != wire.ErrUnimplemented {
			return
		}
		c.watchesUnrestorable(rs)
		rs.Persistent, rs.Recursive = nil, nil
	}
	_ = c.sendBatches(conn, wire.OpSetWatches, watches.SetWatchesBatches(zxid, rs), func() { c.watches.Restored(zxid) })
}

// sendBatches sends one request of opcode per batch, and calls done on
// the receive goroutine when the server has answered the last one.
func (c *Client) sendBatches(conn *zk.Conn, opcode int32, batches []watches.Batch, done func()) error {
	for i, b := range batches {
		req := c.watchesRequest(opcode, b)
		if i == len(batches)-1 && done != nil {
			answered := req.OnReply
			req.OnReply = func(code int32, zxid int64, body []byte) {
				answered(code, zxid, body)
				if code == wire.CodeOK {
					done()
				}
			}
		}
		if err := c.carry(conn, req); err != nil {
			if err != wire.ErrUnimplemented {
				c.log.Debug("setting watches again failed; the next connection tries again", "err", err)
			}
			return err
		}
	}
	return nil
}

// watchesBack tells every persistent watch that it is set again.
func (c *Client) watchesBack(rs watches.RestoreSet, zxid int64) {
	c.watches.Back()
	typ := watches.SessionChanged
	if rs.SameSession {
		typ = watches.Resumed
	}
	for _, s := range rs.Watchers {
		s.Deliver(watches.Event{Type: typ, Path: s.Key().Path, Zxid: zxid})
	}
}

// watchesUnrestorable ends the persistent watches a server without
// setWatches2 cannot take.
func (c *Client) watchesUnrestorable(rs watches.RestoreSet) {
	defer c.watches.Back()
	for _, s := range rs.Watchers {
		c.watches.RemovePersistent(s, false)
		s.End(opError("watch", watchOf(s).path, wire.ErrUnimplemented))
	}
}

// watchesRequest is the setWatches or setWatches2 request of b, which
// records the modes it sets as it is written, and is encoded then, from
// the lists the table keeps (see WriteWatches); the child one-shot
// watches of a recursively watched path, which the recursive mode
// displaces, are set again once it is answered (see
// internal/watches/servermodes.go).
func (c *Client) watchesRequest(opcode int32, b watches.Batch) *wire.Carried {
	var apart bool
	var paths watches.RestoreSet
	return &wire.Carried{
		Opcode: opcode,
		Prepare: func(req *wire.Carried) {
			apart = c.modesApart()
			var left watches.RestoreSet
			paths, left = c.watches.WriteWatches(b, apart)
			if b.Legacy && len(paths.Persistent)+len(paths.Recursive) > 0 {
				// Modes kept (see WriteWatches): the server has them, so
				// it has setWatches2.
				b.Legacy, req.Opcode = false, wire.OpSetWatches2
			}
			req.Body = b.Body(paths)
			if b.LeftOut != nil {
				b.LeftOut(left)
			}
		},
		OnReply: func(code int32, zxid int64, _ []byte) {
			if code != wire.CodeOK {
				return
			}
			for p, displaced := range c.watches.WatchesAnswered(paths, apart) {
				c.setChildWatchesAgain(p, zxid, displaced)
			}
		},
	}
}
