package semaphore

import (
	"context"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// discard deletes nodes that did not become leases, under the rule for
// finishing after the caller's context has ended, and leaves to the client's background
// deletion any that it could not delete.
func (s *Semaphore) discard(nodes []framework.Node) {
	session := nodes[0].Session
	if session.IsLost() {
		return // gone with their session
	}
	ctx, cancel := recipe.FinishContext(framework.BindSession(context.Background(), session))
	defer cancel()
	ops := make([]framework.Op, len(nodes))
	for i, n := range nodes {
		ops[i] = framework.DeleteOp(n.Path, -1)
	}
	if _, err := s.client.Multi(ctx, ops...); err == nil {
		return
	}
	for _, n := range nodes { // some may be gone already: one by one
		_ = recipe.DeleteNode(ctx, s.client, n)
	}
}
