package framework

import (
	"context"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework/internal/watches"
	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// What takes a persistent watch off the server again. The last Watch of a
// path and mode to close leaves the server's watch lingering for a while
// (watches.Linger), in which a Watch of the same path and mode takes it
// over without a request; then the table hands it to removeServerWatch.

// set enters w in the client's table once the server has its watch,
// unless Watch has failed meanwhile (its ctx ended first): then the
// server's watch is unneeded, and lingers as a closed one does. It runs
// on the receive goroutine.
func (w *Watch) set() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.abandoned {
		w.c.watches.AddPersistent(w.sub())
		return
	}
	w.c.watches.Unneeded(w.sub().Key())
}

// abandon is the end of a Watch call that failed: if a reply came all
// the same, the watch is taken out again (see set).
func (w *Watch) abandon() {
	w.mu.Lock()
	w.abandoned, w.ended = true, true
	w.mu.Unlock()
	w.forget() // in case the reply came before the failure
}

// forget takes w out of the client's table; the server's watch lingers if
// it was the last of its path and mode.
func (w *Watch) forget() { w.c.watches.RemovePersistent(w.sub(), true) }

// removeServerWatch removes the server's watch of k, bounded by the
// connection timeout. It runs on a goroutine of its own, started by the
// table, which holds off every Watch of k until it returns.
func (c *Client) removeServerWatch(k watches.Key) {
	if c.isClosed() {
		return
	}
	ctx, cancel := context.WithTimeout(c.life, c.cfg.connectionTimeout)
	defer cancel()
	p := c.clientPath(k.Path)
	_, err := retry(ctx, c, "remove_watch", p, func(conn *zk.Conn, _ *Session) (struct{}, error) {
		return struct{}{}, c.removeFromServer(conn, k)
	})
	if err != nil {
		c.log.Debug("removing an unneeded watch failed; it goes with the connection", "path", p, "err", err)
	}
}

// removeFromServer removes the server's watch of k's path and mode.
// ZooKeeper 3.9 keeps the modes of a path apart and removes a persistent
// watch by its mode. 3.6 to 3.8 keep one mode per path in each of their
// two watch managers and can remove only a manager's watch of a path
// (ZOOKEEPER-4472): there the modes are brought in line with what the
// client still needs, step by step (see
// internal/watches/removesteps.go).
func (c *Client) removeFromServer(conn *zk.Conn, k watches.Key) error {
	if !c.modesApart() {
		return c.removeModes(conn, k.Path)
	}
	servers := c.carrier.Servers
	if server := servers.Current(); !servers.KnownLacking(server, wire.OpRemovePersistentWatch) {
		err := c.carry(conn, removeWatchesRequest(k.Path, removeWatchType(k.Mode)))
		if !wire.IsCode(err, wire.CodeMarshallingError) {
			return ignoreNoWatcher(err)
		}
		servers.Lack(server, wire.OpRemovePersistentWatch)
	}
	if c.watches.Watched(k.Path) {
		return nil
	}
	return ignoreNoWatcher(c.carry(conn, removeWatchesRequest(k.Path, wire.WatcherAny)))
}

// maxRemovalSteps bounds a removal: a switch to the persistent mode, two
// conversions and a removal, and room for steps that requests written
// meanwhile call for.
const maxRemovalSteps = 8

// removeModes takes off the server what no watch of the client needs at
// path, each step decided as its request is written. A one-shot watch a
// mode served is set on the server first (see
// internal/watches/removesteps.go).
func (c *Client) removeModes(conn *zk.Conn, path string) error {
	for range maxRemovalSteps {
		if c.watches.NextRemoval(path) == watches.RemovalDone {
			return nil
		}
		var step watches.Step
		req := &wire.Carried{
			Prepare: func(req *wire.Carried) {
				step = c.watches.WriteRemoval(path)
				step.Request(req, path)
			},
			OnReply: func(code int32, _ int64, _ []byte) {
				c.watches.RemovalAnswered(path, step, code)
			},
		}
		err := c.carry(conn, req)
		if err = ignoreNoNode(ignoreNoWatcher(err)); err != nil {
			return err
		}
	}
	return nil
}

// removeWatchesRequest is removeWatches of path's watches of type typ.
func removeWatchesRequest(path string, typ int32) *wire.Carried {
	var body wire.JuteWriter
	body.String(path)
	body.Int32(typ)
	return &wire.Carried{Opcode: wire.OpRemoveWatches, Body: body.B}
}

// ignoreNoWatcher drops the server's "no such watch": it went with a
// connection already.
func ignoreNoWatcher(err error) error {
	if wire.IsCode(err, wire.CodeNoWatcher) {
		return nil
	}
	return err
}

// removeWatchType is removeWatches' watcher type of a mode.
func removeWatchType(mode watches.Mode) int32 {
	if mode == watches.Recursive {
		return wire.WatcherPersistentRecursive
	}
	return wire.WatcherPersistent
}
