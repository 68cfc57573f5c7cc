package node

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
)

// retryPause is the wait before trying a failed create again, unless the
// server tells of a change or the client reconnects first.
const retryPause = 500 * time.Millisecond

// setAttempts bounds SetData's reads and writes when others keep writing
// the node between them.
const setAttempts = 3

// deleteBound bounds the deletion of the node once it stops.
const deleteBound = 10 * time.Second

// The node's goroutine looks at its node (one exists read, which also
// sets a watch), creates it if it is gone, and waits for the watch, a
// reconnect, or the pause after a failure; then it looks again.

func (n *Node) run(ctx context.Context) {
	n.ctx = ctx
	unhook := n.client.AddListener(func(sc framework.StateChange) {
		if sc.State == framework.Connected || sc.State == framework.Reconnected {
			n.poke()
		}
	})
	defer unhook()
	sidecarDone := make(chan struct{})
	defer n.deleteOwn(sidecarDone)
	sidecarCtx, stopSidecar := context.WithCancel(ctx)
	defer stopSidecar() // before the deletion waits for it
	// Ends with sidecarCtx.
	go func() {
		defer close(sidecarDone)
		if n.sidecar != nil {
			n.sidecar(sidecarCtx)
		}
	}()
	for !n.quit {
		watch, retry := n.ensure()
		if watch == nil && !retry {
			if ctx.Err() != nil {
				return
			}
			continue // look again at once
		}
		var pause <-chan time.Time
		if retry {
			pause = time.After(retryPause)
		}
		select {
		case <-watch:
		case <-n.wake:
		case <-pause:
		case <-ctx.Done():
			return
		}
	}
}

// ensure makes sure the node is there and the process's: it returns the
// watch of the node, and whether to try again after a pause; no watch and
// no pause is to look again at once.
func (n *Node) ensure() (<-chan zk.Event, bool) {
	ctx := n.ctx
	if n.client.IsClosed() {
		// No session will come to wake it: stop now, as a call on a
		// closed client fails at once.
		return nil, n.failed(framework.ErrClosed)
	}
	session := n.client.Session()
	if session == nil || session.IsLost() {
		return nil, true // the next session wakes it
	}
	n.mu.Lock()
	node, owner := n.node, n.owner
	n.mu.Unlock()
	if node != "" && n.mode.IsEphemeral() && owner != session.ID() {
		// A new session: the old node is gone, or goes with its session.
		// Create first, within one round trip; delete the old one after.
		n.setNode("", 0)
		watch, retry := n.create(ctx, session)
		if !n.fixedName() {
			n.deleteIfOwnedBy(ctx, node, owner)
		}
		return watch, retry
	}
	if node != "" {
		ok, stat, watch, err := n.client.ExistsW(ctx, node)
		switch {
		case err != nil:
			return nil, n.failed(err)
		case ok && (!n.mode.IsEphemeral() || stat.EphemeralOwner == session.ID()):
			if n.behind() { // a create carried older data: write the node's
				return nil, n.catchUp(ctx)
			}
			return watch, false // still there, and ours, with the node's data
		}
		n.setNode("", 0) // deleted by someone
	}
	return n.create(ctx, session)
}

// create creates the node and watches it.
func (n *Node) create(ctx context.Context, session *framework.Session) (<-chan zk.Event, bool) {
	n.mu.Lock()
	data, gen := n.data, n.gen
	n.mu.Unlock()
	var copts []framework.CreateOption
	if n.opts.ttl > 0 {
		copts = append(copts, framework.WithTTL(n.opts.ttl))
	}
	if n.opts.protected {
		made, err := n.client.CreateProtected(ctx, n.path, data, n.mode, copts...)
		if err != nil {
			return nil, n.failed(err)
		}
		return n.made(made.Path, made.Session.ID(), gen, true)
	}
	made, err := n.client.Create(ctx, n.path, data, n.mode, append(copts, framework.WithParents())...)
	if errors.Is(err, zk.ErrNodeExists) {
		return n.taken(ctx, session, data, gen)
	}
	if err != nil {
		return nil, n.failed(err)
	}
	return n.made(made, session.ID(), gen, true)
}

// taken handles a create of the node's own name that found a node there:
// ours from a create whose answer was lost, ours from a lost session,
// persistent (taken over, with our data, as Curator does), or another
// session's ephemeral node (waited for).
func (n *Node) taken(ctx context.Context, session *framework.Session, data []byte, gen uint64) (<-chan zk.Event, bool) {
	ok, stat, watch, err := n.client.ExistsW(ctx, n.path)
	switch {
	case err != nil:
		return nil, n.failed(err)
	case !ok:
		return nil, false // gone meanwhile: create again
	case !n.mode.IsEphemeral():
		if _, err := n.client.Set(ctx, n.path, data, -1); err != nil {
			return nil, n.failed(err)
		}
		return n.made(n.path, session.ID(), gen, true)
	case stat.EphemeralOwner == session.ID():
		// Made by a create whose answer was lost: that create's data, or
		// an older create's; written again if it is not the node's.
		return n.made(n.path, session.ID(), gen, false)
	}
	n.mu.Lock()
	ours := stat.EphemeralOwner != 0 && (stat.EphemeralOwner == n.owner || stat.EphemeralOwner == n.prevOwner)
	n.mu.Unlock()
	if ours { // of a lost session of the process's, still there
		if !n.deleteIfOwnedBy(ctx, n.path, stat.EphemeralOwner) {
			return nil, true
		}
		return nil, false // and create again at once
	}
	n.emit(Event{Type: Failed, Node: n.path, Err: fmt.Errorf("node %s: %w: held by session 0x%x", n.path, zk.ErrNodeExists, stat.EphemeralOwner)})
	return watch, false // waits for it to go
}

// made records a created node, holding the data of version gen if known,
// and tells the listeners. The node is looked at again at once (ensure's
// read, which sets the watch): one deleted right after its create, before
// that read, is created again rather than waited for, and data set while
// the create was on its way is written to it.
func (n *Node) made(node string, owner int64, gen uint64, known bool) (<-chan zk.Event, bool) {
	n.mu.Lock()
	n.setNodeLocked(node, owner)
	n.written = 0
	if known {
		n.written = gen
	}
	if !n.createdOnce() {
		close(n.created)
	}
	n.mu.Unlock()
	n.emit(Event{Type: Created, Node: node})
	return nil, false
}

// createdOnce tells whether the first create was announced; n.mu held.
func (n *Node) createdOnce() bool {
	select {
	case <-n.created:
		return true
	default:
		return false
	}
}

func (n *Node) setNode(node string, owner int64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.setNodeLocked(node, owner)
}

// setNodeLocked is setNode with n.mu held.
func (n *Node) setNodeLocked(node string, owner int64) {
	n.node = node
	if owner != 0 && owner != n.owner {
		n.prevOwner, n.owner = n.owner, owner
	}
	n.signal()
}

// fixedName tells whether the node's path is the path given (no
// protection id, no sequence).
func (n *Node) fixedName() bool { return !n.opts.protected }

// failed logs a failed request and says to try again, unless the node
// must stop (the client was closed) or is stopping.
func (n *Node) failed(err error) bool {
	if n.ctx.Err() != nil {
		return false
	}
	if errors.Is(err, framework.ErrClosed) {
		n.life.Stopped(fmt.Errorf("%w: %w", ErrClosed, err))
		n.quit = true
		return false
	}
	if !retryable(err) {
		n.emit(Event{Type: Failed, Node: n.path, Err: err})
	}
	n.log().Debug("node: create failed; trying again", "path", n.path, "err", err)
	return true
}

// retryable tells whether err is one that time cures by itself.
func retryable(err error) bool {
	return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrSessionExpired) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, framework.ErrSessionChanged) ||
		errors.Is(err, zk.ErrNoServer) || errors.Is(err, zkrecipes.ErrUnreachable) ||
		errors.Is(err, framework.ErrNotConnected)
}

// deleteIfOwnedBy deletes node if it is an ephemeral node of session
// owner: one of the process's that a lost session leaves for a while. It
// tells whether the node is gone.
func (n *Node) deleteIfOwnedBy(ctx context.Context, node string, owner int64) bool {
	ok, stat, err := n.client.Exists(ctx, node)
	switch {
	case err != nil:
		return false
	case !ok:
		return true
	case stat.EphemeralOwner != owner:
		return false
	}
	if err := n.client.Delete(ctx, node, stat.Version); err != nil && !isNoNode(err) {
		n.log().Debug("node: an old node was not deleted; its session takes it", "node", node, "err", err)
		return false
	}
	return true
}

// deleteOwn deletes the node as the node stops. A create the stopping
// cut short may still reach the server: for a name of its own the path
// is looked at too, after it in the connection's order.
func (n *Node) deleteOwn(sidecarDone <-chan struct{}) {
	<-sidecarDone // its last write is in the connection's order before the deletes
	ctx, cancel := context.WithTimeout(context.Background(), deleteBound)
	defer cancel()
	n.mu.Lock()
	node := n.node
	n.mu.Unlock()
	if node == "" && n.fixedName() && n.mode.IsEphemeral() {
		node = n.path // ours only if its owner is our session, checked below
	}
	if node == "" {
		return // a protected create cut short is deleted by the client
	}
	ok, stat, err := n.client.Exists(ctx, node)
	if err != nil || !ok {
		return
	}
	if session := n.client.Session(); n.mode.IsEphemeral() && (session == nil || stat.EphemeralOwner != session.ID()) {
		return // not ours
	}
	if n.mode == framework.Container { // a TTLNode's: its touch child first
		names, _, _ := n.client.Children(ctx, node)
		for _, name := range names {
			_ = n.client.Delete(ctx, node+"/"+name, -1)
		}
	}
	if err := n.client.Delete(ctx, node, -1); err != nil && !isNoNode(err) {
		n.log().Warn("node: not deleted at close", "node", node, "err", err)
	}
	n.setNode("", 0)
}

func isNoNode(err error) bool { return errors.Is(err, zk.ErrNoNode) }
