package framework

import (
	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// maxRestoreBody bounds one setWatches request's body, as ZooKeeper's own
// client does: a server rejects packets over its jute.maxbuffer (1 MB by
// default, configurable lower).
const maxRestoreBody = 128 << 10

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
	rs := c.watches.connected(id)
	zxid := c.watches.restoreFrom()
	if len(rs.data)+len(rs.exist)+len(rs.child)+len(rs.persistent)+len(rs.recursive) == 0 {
		c.watches.restored(zxid)
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

func (c *Client) sendRestore(conn *zk.Conn, zxid int64, rs restoreSet) {
	if len(rs.persistent)+len(rs.recursive) > 0 {
		err := c.sendBatches(conn, wire.OpSetWatches2, restoreBatches(zxid, rs), func() {
			c.watches.restored(zxid)
			c.watchesBack(rs, zxid)
		})
		if err != wire.ErrUnimplemented {
			return
		}
		c.watchesUnrestorable(rs)
		rs.persistent, rs.recursive = nil, nil
	}
	_ = c.sendBatches(conn, wire.OpSetWatches, setWatchesBatches(zxid, rs), func() { c.watches.restored(zxid) })
}

// sendBatches sends one request of opcode per batch, and calls done on
// the receive goroutine when the server has answered the last one.
func (c *Client) sendBatches(conn *zk.Conn, opcode int32, batches []watchBatch, done func()) error {
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
func (c *Client) watchesBack(rs restoreSet, zxid int64) {
	c.watches.back()
	typ := WatchSessionChanged
	if rs.sameSession {
		typ = WatchResumed
	}
	for _, w := range rs.watchers {
		w.push(WatchEvent{Type: typ, Path: w.path, Zxid: zxid})
	}
}

// watchesUnrestorable ends the persistent watches a server without
// setWatches2 cannot take.
func (c *Client) watchesUnrestorable(rs restoreSet) {
	defer c.watches.back()
	for _, w := range rs.watchers {
		c.watches.removePersistent(w, false)
		w.end(opError("watch", w.path, wire.ErrUnimplemented))
	}
}

// watchesRequest is the setWatches or setWatches2 request of b, which
// records the modes it sets as it is written, and is encoded then, from
// the lists the table keeps (see writeWatches); the child one-shot
// watches of a recursively watched path, which the recursive mode
// displaces, are set again once it is answered (see servermodes.go).
func (c *Client) watchesRequest(opcode int32, b watchBatch) *wire.Carried {
	var apart bool
	var paths restoreSet
	return &wire.Carried{
		Opcode: opcode,
		Prepare: func(req *wire.Carried) {
			apart = c.modesApart()
			var left restoreSet
			paths, left = c.watches.writeWatches(b, apart)
			if b.legacy && len(paths.persistent)+len(paths.recursive) > 0 {
				// Modes kept (see writeWatches): the server has them, so
				// it has setWatches2.
				b.legacy, req.Opcode = false, wire.OpSetWatches2
			}
			req.Body = b.body(paths)
			if b.leftOut != nil {
				b.leftOut(left)
			}
		},
		OnReply: func(code int32, zxid int64, _ []byte) {
			if code != wire.CodeOK {
				return
			}
			for p, displaced := range c.watches.watchesAnswered(paths, apart) {
				c.setChildWatchesAgain(p, zxid, displaced)
			}
		},
	}
}

// watchBatch is one setWatches or setWatches2 request.
type watchBatch struct {
	zxid   int64
	paths  restoreSet // the lists alone
	legacy bool       // setWatches: without the persistent lists
	// recursive holds the paths of the restore's recursive list, in this
	// batch or another: its persistent list leaves them out (covered.go).
	recursive map[string]bool
	// leftOut, of a ChangedSince probe, is told the paths left out of the
	// request as it is written (see writeWatches); it must not block.
	leftOut func(restoreSet)
}

// body encodes paths as b's request body.
func (b watchBatch) body(paths restoreSet) []byte {
	var w wire.JuteWriter
	w.Int64(b.zxid)
	for _, l := range [][]string{paths.data, paths.exist, paths.child} {
		w.Strings(l)
	}
	if !b.legacy {
		w.Strings(paths.persistent)
		w.Strings(paths.recursive)
	}
	return w.B
}

// restoreBatches divides rs into setWatches2 requests of at most
// maxRestoreBody bytes each (a single path longer than that gets a body of
// its own). The lists keep their order across the batches: every one-shot
// watch comes before every persistent one, which the server then sets
// after it.
func restoreBatches(zxid int64, rs restoreSet) []watchBatch {
	lists := [5][]string{rs.data, rs.exist, rs.child, rs.persistent, rs.recursive}
	var recursive map[string]bool
	if len(rs.persistent) > 0 && len(rs.recursive) > 0 {
		recursive = make(map[string]bool, len(rs.recursive))
		for _, p := range rs.recursive {
			recursive[p] = true
		}
	}
	var batches []watchBatch
	var batch [5][]string
	size := 0
	flush := func() {
		paths := restoreSet{data: batch[0], exist: batch[1], child: batch[2], persistent: batch[3], recursive: batch[4]}
		batches = append(batches, watchBatch{zxid: zxid, paths: paths, recursive: recursive})
		batch, size = [5][]string{}, 0
	}
	for i, list := range lists {
		for _, p := range list {
			if size > 0 && size+4+len(p) > maxRestoreBody {
				flush()
			}
			batch[i] = append(batch[i], p)
			size += 4 + len(p)
		}
	}
	if size > 0 {
		flush()
	}
	return batches
}
