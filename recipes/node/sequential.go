package node

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// createSequential creates the node of WithoutProtection: <path><seq>,
// with no protection id to find it by after a lost answer. So the create
// is never sent again blindly, which would leave a twin that nobody owns:
//
//   - It goes out as a one-operation transaction, which the client never
//     sends twice after a lost answer (Client.Multi: ErrOutcomeUnknown
//     instead), where a plain Create is retried as it is.
//   - Its outcome unknown, it is looked for before the next create, as
//     what only it can have made: an ephemeral node of the session it was
//     sent in, named <path><seq>, holding its data. No other process's
//     node has that owner, and the look is answered after the lost
//     create (the server answers a session's requests in order, and one
//     from a connection the session has left is refused, not applied).
//   - The transaction is bound to the session, so that a run in a later
//     session is deleted by the client; a node of an earlier one that the
//     look finds is deleted by the node.
func (n *Node) createSequential(ctx context.Context, session *framework.Session, data []byte, gen uint64) (<-chan zk.Event, bool) {
	if len(n.unsureWrites) > 0 {
		found, foundData, err := n.findUnsure(ctx, session.ID())
		if err != nil {
			return nil, n.failed(err)
		}
		if found != "" {
			return n.made(found, session.ID(), gen, bytes.Equal(foundData, data))
		}
	}
	results, err := n.client.Multi(framework.BindSession(ctx, session), framework.CreateOp(n.path, data, n.mode))
	switch {
	case err == nil:
		return n.made(results[0].Path, session.ID(), gen, true)
	case isNoNode(err):
		return n.makeParent(ctx)
	case errors.Is(err, framework.ErrOutcomeUnknown):
		n.unsureWrites = append(n.unsureWrites, unsureWrite{data: data, session: session.ID()})
		return nil, false // looked for at once, or as the node stops
	}
	return nil, n.failed(err)
}

// findUnsure looks for the nodes that the writes of unknown outcome made:
// ephemeral nodes of the session each was sent in, named <path><seq>,
// holding its data. The first of session keep is returned with its data,
// to be the node; the others are deleted. An error leaves the writes
// unsure, to be looked for again.
func (n *Node) findUnsure(ctx context.Context, keep int64) (found string, foundData []byte, err error) {
	parent, prefix := zkpath.Split(n.path)
	names, _, err := n.client.Children(ctx, parent)
	if err != nil && !isNoNode(err) {
		return "", nil, err
	}
	for _, name := range names {
		if !isSequenceOf(name, prefix) {
			continue
		}
		node := zkpath.Join(parent, name)
		data, stat, err := n.client.Get(ctx, node)
		switch {
		case isNoNode(err):
			continue
		case err != nil:
			return "", nil, err
		case !n.madeByUnsure(stat.EphemeralOwner, data):
			continue
		case stat.EphemeralOwner == keep && found == "":
			found, foundData = node, data
		default:
			n.deleteIfOwnedBy(ctx, node, stat.EphemeralOwner)
		}
	}
	n.unsureWrites = nil
	return found, foundData, nil
}

// madeByUnsure tells whether a node of owner holding data may be what a
// write of unknown outcome made.
func (n *Node) madeByUnsure(owner int64, data []byte) bool {
	for _, w := range n.unsureWrites {
		if w.session == owner && bytes.Equal(w.data, data) {
			return true
		}
	}
	return false
}

// isSequenceOf tells whether name is prefix followed by the sequence
// number ZooKeeper appends.
func isSequenceOf(name, prefix string) bool {
	seq, ok := strings.CutPrefix(name, prefix)
	if !ok || len(seq) < 10 || len(seq) > 11 {
		return false
	}
	_, ok = zkpath.SequenceOf(seq)
	return ok && (len(seq) == 10 || seq[0] == '-')
}
