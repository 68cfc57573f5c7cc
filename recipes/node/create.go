package node

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// unsureWrite is a create (or a take-over's write) of the node whose
// outcome is not known: its answer was lost, or the node stopped before
// it came. What it may have made is the node's, found by its data.
type unsureWrite struct {
	data    []byte
	session int64 // the session it was sent in
}

// create creates the node and says what to do next (see ensure).
func (n *Node) create(ctx context.Context, session *framework.Session) (<-chan zk.Event, bool) {
	n.mu.Lock()
	data, gen := n.data, n.gen
	n.mu.Unlock()
	var copts []framework.CreateOption
	if n.opts.ttl > 0 {
		copts = append(copts, framework.WithTTL(n.opts.ttl))
	}
	if n.opts.plain {
		return n.createSequential(ctx, session, data, gen)
	}
	if n.opts.protected {
		made, err := n.client.CreateProtected(ctx, n.path, data, n.mode, copts...)
		if err != nil {
			return nil, n.failed(err)
		}
		return n.made(made.Path, made.Session.ID(), gen, true)
	}
	// No WithParents: a create cut short by the node's stop then sends
	// one request, which the deletion as it stops looks after (deleteOwn).
	_, err := n.client.Create(ctx, n.path, data, n.mode, copts...)
	switch {
	case err == nil:
		return n.made(n.path, session.ID(), gen, true)
	case errors.Is(err, zk.ErrNodeExists):
		return n.taken(ctx, session, data, gen)
	case isNoNode(err):
		return n.makeParent(ctx)
	}
	n.unsure(err, data, session)
	return nil, n.failed(err)
}

// makeParent creates the node's missing parent and its own, as
// containers (Curator's creatingParentContainersIfNeeded), and says to
// create the node at once. The create just said the parent is missing,
// so no read asks first.
func (n *Node) makeParent(ctx context.Context) (<-chan zk.Event, bool) {
	_, err := n.client.Create(ctx, zkpath.Parent(n.path), nil, framework.Container, framework.WithParents())
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return nil, n.failed(err)
	}
	return nil, false
}

// unsure records a write of data that failed with err, if it may have
// been applied all the same.
func (n *Node) unsure(err error, data []byte, session *framework.Session) {
	if errors.Is(err, framework.ErrOutcomeUnknown) || framework.IsRetryable(err) {
		n.unsureWrites = append(n.unsureWrites, unsureWrite{data: data, session: session.ID()})
	}
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
			n.unsure(err, data, session)
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
	n.emit(Event{Type: Failed, Path: n.path, Err: fmt.Errorf("node %s: %w: held by session 0x%x", n.path, zk.ErrNodeExists, stat.EphemeralOwner)})
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
	n.unsureWrites = nil // the node is known: what they made is this node, or was looked for
	n.emit(Event{Type: Created, Path: node})
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
func (n *Node) fixedName() bool { return !n.opts.protected && !n.opts.plain }
