package mutex

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// takePlace creates the node that keeps the place of at.Node (see
// WithPlace); it holds at once. The create is bound to at's session, and
// runs in one transaction with a check that at.Node still exists: a place
// is never taken after its node is gone, since a waiter behind it may hold
// by then.
func (e *engine) takePlace(ctx context.Context, at Spot) (acquired, error) {
	if at.Session.IsLost() {
		return acquired{}, fmt.Errorf("%w: the session of the node whose place to take is lost", ErrLost)
	}
	id := zkpath.NewProtectionID()
	name := zkpath.ProtectedName(id, e.lockName+at.Sequence)
	node := framework.Node{Path: zkpath.Join(e.dir, name), Name: name, ProtectionID: id, Session: at.Session}
	bound := framework.BindSession(ctx, at.Session)
	// The check does not compare versions: the node's name, protected,
	// names one create, so its existence is its identity; its data version
	// changes only when someone writes into it (a revocation request),
	// which does not end a hold.
	ops := []framework.Op{framework.CheckOp(at.Node, -1), framework.CreateOp(node.Path, e.data, framework.Ephemeral)}
	// The transaction runs to its end even if ctx ends first, so that
	// what it made is known once it has answered.
	sent, finished, err := framework.Aside(ctx, func() (int, error) {
		_, sent, err := e.client.Hooks().MultiSent(context.WithoutCancel(bound), ops...)
		return sent, err
	})
	switch {
	case err == nil:
		return acquired{node: node}, nil
	case ctx.Err() != nil:
		// Nobody will hold the node: delete it once the transaction has
		// answered, if it made it.
		e.sweep(node, finished, false)
		return acquired{}, err
	case sent == 1 && errors.Is(err, zk.ErrNoNode), at.Session.IsLost():
		return acquired{}, placeError(err, at) // it ran once and failed, or its node is gone
	}
	// A run whose answer was lost may have made the node, and the retry
	// then failed on it, or on the check if at.Node went in between. The
	// node alone tells: it carries a fresh protection id, so no one else
	// made it, and it was made together with the check.
	found, lookErr := e.placed(bound, node)
	if found {
		return acquired{node: node}, nil
	}
	// A request cut off with its connection may still arrive late.
	e.sweep(node, nil, lookErr == nil)
	return acquired{}, placeError(err, at)
}

// placed reports whether node exists in its session.
func (e *engine) placed(ctx context.Context, node framework.Node) (bool, error) {
	ok, stat, err := e.client.Exists(ctx, node.Path)
	if err != nil || !ok {
		return false, err
	}
	return stat.EphemeralOwner == node.Session.ID(), nil
}

// sweep deletes, in the background, node if a transaction whose answer was
// lost makes it: once after is closed (nil: at once), and again later;
// only later when the caller has just looked.
func (e *engine) sweep(node framework.Node, after <-chan struct{}, laterOnly bool) {
	_, _ = e.client.Hooks().DeleteProtected(framework.ProtectedCleanup{
		Parent: e.dir, IDs: []string{node.ProtectionID}, After: after, LaterOnly: laterOnly,
	})
}

// placeError is what a failed takePlace returns: the loss when the node
// whose place to take is gone, or its session.
func placeError(err error, at Spot) error {
	if errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("%w: %s, whose place to take, is gone: %w", ErrLost, at.Node, err)
	}
	return recipe.WaitError(err, at.Session, ErrNodeMissing)
}
