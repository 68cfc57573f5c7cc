package framework

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework/internal/watches"
	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// WatchMode is the kind of a persistent watch (ZooKeeper 3.6's addWatch).
type WatchMode int32

const (
	// WatchPersistent watches one node: its creation, data changes,
	// deletion and changes of its list of children, until closed.
	WatchPersistent WatchMode = 0
	// WatchRecursive watches a node and every node below it: creation,
	// data changes and deletion (no children events: a child's creation
	// or deletion is its own event), until closed.
	WatchRecursive WatchMode = 1
)

// String returns the mode's name, as log lines show it.
func (m WatchMode) String() string {
	switch m {
	case WatchPersistent:
		return "persistent"
	case WatchRecursive:
		return "recursive"
	}
	return fmt.Sprintf("WatchMode(%d)", int32(m))
}

// WatchEventType is what a WatchEvent says.
type WatchEventType int32

const (
	// NodeCreated: the node at Path was created.
	NodeCreated = WatchEventType(zk.EventNodeCreated)
	// NodeDeleted: the node at Path was deleted.
	NodeDeleted = WatchEventType(zk.EventNodeDeleted)
	// NodeDataChanged: the data of the node at Path was set.
	NodeDataChanged = WatchEventType(zk.EventNodeDataChanged)
	// NodeChildrenChanged: a child of the node at Path was created or
	// deleted (WatchPersistent only).
	NodeChildrenChanged = WatchEventType(zk.EventNodeChildrenChanged)
	// WatchResumed: the client reconnected to the same session and set the
	// watch again. The server sends nothing for what changed before, while
	// the client was away or on the new connection ahead of the watch (a
	// write of the client's own included): read again what you keep.
	WatchResumed WatchEventType = 100
	// WatchSessionChanged: the session ended and the client set the watch
	// again in a new one. Read again what you keep; ephemeral nodes of the
	// old session are gone or going.
	WatchSessionChanged WatchEventType = 101
	// WatchInterrupted: the connection ended, and the client has a new
	// one, on which the watch is not yet set again: what changes now goes
	// untold until WatchResumed or WatchSessionChanged. It is told only
	// to a watch of Hooks.WatchFunc, before any reply that comes on the
	// new connection is handed on, which lets a recipe that keeps state
	// from the events know that state stale before it acts on a reply.
	WatchInterrupted WatchEventType = 102
)

// String returns the event type's name, as log lines show it.
func (t WatchEventType) String() string {
	switch t {
	case WatchResumed:
		return "WatchResumed"
	case WatchSessionChanged:
		return "WatchSessionChanged"
	case WatchInterrupted:
		return "WatchInterrupted"
	}
	return zk.EventType(t).String()
}

// WatchEvent is one event of a persistent watch. Path is relative to the
// client's namespace; for WatchResumed and WatchSessionChanged it is the
// watched path.
type WatchEvent struct {
	Type WatchEventType
	Path string
	// Zxid, of WatchResumed and WatchSessionChanged, is the last zxid the
	// client had seen before the watch was set again: the watch told every
	// change up to it, and Client.ChangedSince finds those after it.
	// Zero for the other events.
	Zxid int64
}

// Watch is a persistent watch set with Client.Watch. Its events arrive on
// Events in the server's order; they wait in a queue of the watch's own
// while the receiver is busy, so that a slow receiver neither blocks the
// client nor loses an event. Close it when done.
type Watch struct {
	c          *Client
	path       string // as the caller gave it
	serverPath string
	mode       WatchMode
	events     chan WatchEvent
	stop       chan struct{} // closed by Close

	// onEvent and onEnd, of Hooks.WatchFunc, take the place of events:
	// called in turn under deliver, which Close takes to wait for a call
	// under way.
	onEvent func(WatchEvent)
	onEnd   func(error)
	deliver sync.Mutex

	mu        sync.Mutex
	abandoned bool // Watch failed: a late reply must not add it
	queue     []WatchEvent
	wake      chan struct{} // has room for one wake-up
	ended     bool
	err       error
	closed    bool
}

// Watch sets a persistent watch of mode on path, which need not exist.
// It needs ZooKeeper 3.6 or later; an older server, or another
// implementation without addWatch, fails it with an error wrapping
// ErrUnimplemented, and the caller falls back to one-shot watches (GetW,
// ExistsW, ChildrenW). After a reconnect the client sets the watch again
// and sends WatchResumed or WatchSessionChanged: catch up with a read.
// If a later server cannot take the watch (a rolling downgrade), Events
// closes and Err says why. A watch of a path and mode the server has for
// the client already (another Watch's, or one closed less than a second
// ago) costs no request, and so does a persistent watch of a path the
// client watches recursively on ZooKeeper 3.6 to 3.8, which is served
// from that watch (see "The wire, and ZooKeeper 3.6+": a child the client
// may not read then changes the children unheard).
func (c *Client) Watch(ctx context.Context, path string, mode WatchMode) (*Watch, error) {
	return c.watch(ctx, path, mode, nil, nil)
}

// watch is Watch, handing the events to onEvent and the end to onEnd if
// they are set (Hooks.WatchFunc).
func (c *Client) watch(ctx context.Context, path string, mode WatchMode, onEvent func(WatchEvent), onEnd func(error)) (*Watch, error) {
	if mode != WatchPersistent && mode != WatchRecursive {
		return nil, opError("watch", path, fmt.Errorf("%w: watch mode %d", ErrInvalidArgument, int32(mode)))
	}
	sp, err := c.serverPath(path)
	if err != nil {
		return nil, opError("watch", path, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, opError("watch", path, err)
	}
	w := &Watch{c: c, path: path, serverPath: sp, mode: mode, events: make(chan WatchEvent), stop: make(chan struct{}), wake: make(chan struct{}, 1),
		onEvent: onEvent, onEnd: onEnd}
	for {
		adopted, removing := c.watches.Adopt(w.sub(), c.modesApart())
		if adopted {
			w.start()
			return w, nil
		}
		if removing == nil {
			break
		}
		// The server's watch of the path is being removed: set it again
		// after, so that the removal cannot take the new one with it.
		select {
		case <-removing:
		case <-ctx.Done():
			return nil, opError("watch", path, ctx.Err())
		}
	}
	var body wire.JuteWriter
	body.String(sp)
	body.Int32(int32(mode))
	_, err = retry(ctx, c, "watch", path, func(conn *zk.Conn, _ *Session) (struct{}, error) {
		// A covered addWatch is a read, which may find no node (see
		// internal/watches/covered.go).
		return struct{}{}, ignoreNoNode(c.carry(conn, c.addWatchRequest(w, body.B)))
	})
	if err != nil {
		w.abandon()
		return nil, err
	}
	w.start()
	return w, nil
}

// addWatchRequest is the addWatch of w, which records the mode it sets
// as it is written and enters w in the table as its reply is read (see
// internal/watches/servermodes.go); the child one-shot watches of the
// path that a recursive mode displaces are set again. A persistent addWatch of a
// path with the recursive mode is a read that changes nothing instead
// (see internal/watches/covered.go).
func (c *Client) addWatchRequest(w *Watch, body []byte) *wire.Carried {
	var add watches.AddRecord
	return &wire.Carried{
		Opcode: wire.OpAddWatch,
		Body:   body,
		Prepare: func(req *wire.Carried) {
			add = c.watches.WriteAdd(w.serverPath, watches.Mode(w.mode), c.modesApart())
			if add.Covered {
				watches.RemovalDone.Request(req, w.serverPath)
			}
		},
		OnReply: func(code int32, zxid int64, _ []byte) {
			ok := code == wire.CodeOK || add.Covered && code == wire.CodeNoNode
			if ok {
				w.set()
			}
			displaced := c.watches.AddAnswered(w.serverPath, watches.Mode(w.mode), ok, add)
			if len(displaced) > 0 {
				c.setChildWatchesAgain(w.serverPath, zxid, displaced)
			}
		},
	}
}

// modesApart reports whether the server of the current connection keeps
// the watch modes of a path apart (ZooKeeper 3.9 and later).
func (c *Client) modesApart() bool {
	s := c.carrier.Servers
	return s.ModesApart(s.Current())
}

// start begins delivering the events: to Events through a goroutine that
// ends when the watch ends and its queue is delivered, or at Close; to
// onEvent on the goroutine that pushes them.
func (w *Watch) start() {
	if w.onEvent != nil {
		close(w.events)
		return
	}
	go w.pump()
}

// Watching reports whether the server has a persistent watch of path and
// mode for the client on the current connection: another Watch's, or one
// closed less than a second ago; for WatchPersistent on ZooKeeper 3.6 to
// 3.8, also a recursive one of path, which serves it. A Watch of them
// then costs no request.
func (c *Client) Watching(path string, mode WatchMode) bool {
	sp, err := c.serverPath(path)
	return err == nil && c.watches.Adoptable(watches.Key{Path: sp, Mode: watches.Mode(mode)}, c.modesApart())
}

// Events returns the channel of the watch's events. It is closed once the
// watch has ended (Err says why) and its events are delivered, or at Close.
func (w *Watch) Events() <-chan WatchEvent { return w.events }

// Path returns the watched path, as given to Client.Watch.
func (w *Watch) Path() string { return w.path }

// Mode returns the watch's mode.
func (w *Watch) Mode() WatchMode { return w.mode }

// Err returns why the watch ended: ErrClosed when the client was closed,
// an error wrapping ErrUnimplemented when a server could not take it
// again after a reconnect; nil while it lasts and after Close.
func (w *Watch) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Close ends the watch; Events closes. When no other watch of the client
// has the same path and mode, the server's watch is removed a second
// later, unless the client watches the path in that mode again by then:
// that Watch takes it over and costs no request. Close may be called
// more than once. It does not wait for the server, and returns nil.
func (w *Watch) Close(ctx context.Context) error {
	w.close(false)
	return nil
}

// close is Close; atOnce removes the server's watch without the linger
// (Hooks.CloseWatchAtOnce).
func (w *Watch) close(atOnce bool) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.closed = true
	w.ended = true
	close(w.stop)
	w.mu.Unlock()
	w.forget()
	if atOnce {
		w.c.watches.ExpireNow(w.sub().Key())
	}
	if w.onEvent != nil {
		w.awaitDelivery()
	}
}

// awaitDelivery returns once a call of onEvent or onEnd under way has
// returned: none comes after an end or a Close.
func (w *Watch) awaitDelivery() {
	w.deliver.Lock()
	defer w.deliver.Unlock()
}

// push queues an event. It never blocks.
func (w *Watch) push(ev WatchEvent) {
	if w.onEvent != nil {
		w.deliver.Lock()
		defer w.deliver.Unlock()
		w.mu.Lock()
		ended := w.ended
		w.mu.Unlock()
		if !ended {
			w.onEvent(ev)
		}
		return
	}
	w.mu.Lock()
	if w.ended {
		w.mu.Unlock()
		return
	}
	w.queue = append(w.queue, ev)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// end ends the watch with err; queued events are still delivered.
func (w *Watch) end(err error) {
	if w.onEvent != nil {
		w.deliver.Lock()
		defer w.deliver.Unlock()
		w.mu.Lock()
		first := !w.ended
		if first {
			w.ended, w.err = true, err
		}
		w.mu.Unlock()
		if first && w.onEnd != nil {
			w.onEnd(err)
		}
		return
	}
	w.mu.Lock()
	if !w.ended {
		w.ended, w.err = true, err
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// pump delivers the queue to Events.
func (w *Watch) pump() {
	defer close(w.events)
	for {
		w.mu.Lock()
		batch, ended := w.queue, w.ended
		w.queue = nil
		w.mu.Unlock()
		for _, ev := range batch {
			select {
			case w.events <- ev:
			case <-w.stop:
				return
			}
		}
		if ended && len(batch) == 0 {
			return
		}
		if len(batch) > 0 {
			continue
		}
		select {
		case <-w.wake:
		case <-w.stop:
			return
		}
	}
}
