package node

import (
	"bytes"
	"context"

	"github.com/zkrecipes/zkrecipes/framework"
)

// deleteOwn deletes the node as the node stops. A create the stopping
// cut short may still reach the server: for a name of its own the path
// is looked at too, after it in the connection's order (see deleteUnsure).
func (n *Node) deleteOwn(sidecarDone <-chan struct{}) {
	<-sidecarDone // its last write is in the connection's order before the deletes
	ctx, cancel := context.WithTimeout(context.Background(), deleteBound)
	defer cancel()
	n.mu.Lock()
	node := n.node
	n.mu.Unlock()
	if node == "" {
		n.deleteUnsure(ctx)
		return
	}
	ok, stat, err := n.client.Exists(ctx, node)
	if err != nil || !ok {
		return
	}
	if session := n.client.Session(); n.mode.IsEphemeral() && (session == nil || stat.EphemeralOwner != session.ID()) {
		return // not ours
	}
	n.deleteNode(ctx, node, -1)
}

// deleteNode deletes node at version, a TTLNode's touch child first.
func (n *Node) deleteNode(ctx context.Context, node string, version int32) {
	if n.mode == framework.Container {
		names, _, _ := n.client.Children(ctx, node)
		for _, name := range names {
			_ = n.client.Delete(ctx, node+"/"+name, -1)
		}
	}
	if err := n.client.Delete(ctx, node, version); err != nil && !isNoNode(err) {
		n.log().Warn("node: not deleted at close", "node", node, "err", err)
	}
	n.setNode("", 0)
}

// deleteUnsure deletes, as the node stops with no node known, what a
// create it cut short may have made. The look is sent after that create
// in the connection's order (the create's try was on its way when the
// stop abandoned it, and it sends one request, without parents), so the
// server answers it after the create: a node the create made is seen.
// A protected create cut short is deleted by the client itself.
func (n *Node) deleteUnsure(ctx context.Context) {
	switch {
	case n.opts.protected:
	case n.opts.plain:
		if len(n.unsureWrites) > 0 {
			_, _, _ = n.findUnsure(ctx, 0) // 0: keeps none
		}
	case n.mode.IsEphemeral():
		// Ours if its owner is our session: no one else's create makes
		// that, whatever its data.
		ok, stat, err := n.client.Exists(ctx, n.path)
		if session := n.client.Session(); err == nil && ok && session != nil && stat.EphemeralOwner == session.ID() {
			n.deleteNode(ctx, n.path, -1)
		}
	case len(n.unsureWrites) > 0:
		// A persistent node has no owner: it is the one a create cut
		// short made if it holds that create's data. One in its place
		// before, with other data, is not the node's to delete.
		data, stat, err := n.client.Get(ctx, n.path)
		if err == nil && n.isUnsure(data) {
			n.deleteNode(ctx, n.path, stat.Version)
		}
	}
}

// isUnsure tells whether data is that of a write of unknown outcome.
func (n *Node) isUnsure(data []byte) bool {
	for _, w := range n.unsureWrites {
		if bytes.Equal(w.data, data) {
			return true
		}
	}
	return false
}
