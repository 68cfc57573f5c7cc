package mutex

import (
	"context"
	"fmt"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Revoke asks the holder of the lock node at nodePath to release it, by
// writing "__REVOKE__" into the node as Curator's Revoker does. Holders
// that made their locks revocable (WithRevocation, or Curator's
// makeRevocable) are told; others ignore it. A node that is already gone
// is not an error.
func Revoke(ctx context.Context, client *framework.Client, nodePath string) error {
	if client == nil {
		return fmt.Errorf("%w: nil client", ErrInvalidArgument)
	}
	if err := zkpath.Validate(nodePath); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	if _, err := client.Set(ctx, nodePath, []byte(zkpath.RevokeMessage), -1); err != nil && !recipe.IsNoNode(err) {
		return fmt.Errorf("mutex: revoke %s: %w", nodePath, err)
	}
	return nil
}
