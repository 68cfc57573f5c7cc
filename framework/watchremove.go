package framework

import (
	"context"

	"github.com/go-zookeeper/zk"
)

// What takes a persistent watch off the server again: Close, and a Watch
// call that failed while its request went on.

// set enters w in the client's table once the server has its watch,
// unless Watch has failed meanwhile (its ctx ended first): then the
// server's watch is removed again. It runs on the receive goroutine.
func (w *Watch) set() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.abandoned {
		w.c.watches.addPersistent(w)
		return
	}
	w.c.spawn(func() { // the server has the watch, the table does not
		w.inBackground(func(ctx context.Context) error {
			if w.c.watches.modeWatched(w.serverPath, w.mode) {
				return nil // another watch of the client needs it
			}
			_, err := retry(ctx, w.c, "remove watch", w.path, func(conn *zk.Conn, _ *Session) (struct{}, error) {
				return struct{}{}, w.removeFromServer(conn)
			})
			return err
		})
	})
}

// abandon is the end of a Watch call that failed: if a reply came all
// the same, the watch is taken out again.
func (w *Watch) abandon() {
	w.mu.Lock()
	w.abandoned, w.ended = true, true
	w.mu.Unlock()
	w.c.spawn(func() { w.inBackground(w.forget) })
}

// inBackground runs a removal nobody waits for, bounded by the
// connection timeout.
func (w *Watch) inBackground(remove func(context.Context) error) {
	ctx, cancel := context.WithTimeout(w.c.life, w.c.cfg.connectionTimeout)
	defer cancel()
	if err := remove(ctx); err != nil {
		w.c.log.Debug("removing an abandoned watch failed; it goes with the connection", "path", w.path, "err", err)
	}
}

// forget takes w out of the client's table and removes the server's watch
// if it was the last of its path and mode.
func (w *Watch) forget(ctx context.Context) error {
	found, last := w.c.watches.removePersistent(w)
	if !found || !last || w.c.isClosed() {
		return nil
	}
	_, err := retry(ctx, w.c, "remove watch", w.path, func(conn *zk.Conn, _ *Session) (struct{}, error) {
		return struct{}{}, w.removeFromServer(conn)
	})
	return err
}

// removeFromServer removes the server's watch of w's path and mode.
// ZooKeeper 3.9 removes a persistent watch by its mode; 3.6 to 3.8 know
// only "any watch of the path" for it (ZOOKEEPER-4472), which would take
// one-shot watches and a watch of the other mode of the same path with
// it: there the server's watch is left while the client has another on
// the path, and its notifications go to no one.
func (w *Watch) removeFromServer(conn *zk.Conn) error {
	servers := w.c.carrier.servers
	if server := servers.current(); !servers.knownLacking(server, opRemovePersistentWatch) {
		err := w.c.carry(conn, removeWatchesRequest(w.serverPath, removeWatchType(w.mode)))
		if !isCode(err, codeMarshallingError) {
			return ignoreNoWatcher(err)
		}
		servers.lack(server, opRemovePersistentWatch)
	}
	if w.c.watches.watched(w.serverPath) {
		return nil
	}
	return ignoreNoWatcher(w.c.carry(conn, removeWatchesRequest(w.serverPath, removeAnyWatch)))
}

// removeWatchesRequest is removeWatches of path's watches of type typ.
func removeWatchesRequest(path string, typ int32) *carried {
	var body juteWriter
	body.string(path)
	body.int32(typ)
	return &carried{opcode: opRemoveWatches, body: body.b}
}

// ignoreNoWatcher drops the server's "no such watch": it went with a
// connection already.
func ignoreNoWatcher(err error) error {
	if isCode(err, codeNoWatcher) {
		return nil
	}
	return err
}

// removeWatches' watcher types.
const (
	removeAnyWatch       = 3
	removePersistent     = 4
	removePersistentTree = 5
)

// removeWatchType is removeWatches' watcher type of a mode.
func removeWatchType(mode WatchMode) int32 {
	if mode == WatchRecursive {
		return removePersistentTree
	}
	return removePersistent
}
