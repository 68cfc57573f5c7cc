package node

import (
	"context"
	"errors"
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

// failed logs a failed request and says to try again, unless the node
// must stop (the client was closed) or is stopping.
func (n *Node) failed(err error) bool {
	if n.ctx.Err() != nil {
		return false
	}
	if errors.Is(err, framework.ErrClosed) {
		n.life.Stopped(err) // wraps ErrClosed, the one value every package re-exports
		n.quit = true
		return false
	}
	if !retryable(err) {
		n.emit(Event{Type: Failed, Path: n.path, Err: err})
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

func isNoNode(err error) bool { return errors.Is(err, zk.ErrNoNode) }
