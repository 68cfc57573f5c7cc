package mutex

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/mutex/lockdriver"
)

// takePlace creates the node that keeps the place of at.Node (see
// WithPlace); it holds at once. The create is bound to at's session, and
// runs in one transaction with a check that at.Node still exists: a place
// is never taken after its node is gone, since a waiter behind it may hold
// by then.
func (e *engine) takePlace(ctx context.Context, at lockdriver.Spot) (acquired, error) {
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
	// After a lost answer the framework finds the node by its protection
	// id (it was made together with the check, so the check passed); what
	// a transaction abandoned with ctx makes, it deletes.
	_, err := e.client.Multi(bound, ops...)
	if err == nil {
		return acquired{node: node}, nil
	}
	switch cerr := ctx.Err(); {
	case cerr == nil:
		return acquired{}, placeError(err, at)
	case errors.Is(err, cerr):
		return acquired{}, err // ended before an answer: nothing refused
	default:
		// The verdict came as ctx ended: both are told, so that the
		// caller learns that the place, and the hold it came from, is lost.
		return acquired{}, fmt.Errorf("%w: %w", placeError(err, at), cerr)
	}
}

// placeError is what a failed takePlace returns: the loss when the node
// whose place to take is gone, or its session.
func placeError(err error, at lockdriver.Spot) error {
	if errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("%w: %s, whose place to take, is gone: %w", ErrLost, at.Node, err)
	}
	return recipe.WaitError(err, at.Session, ErrNodeMissing)
}
