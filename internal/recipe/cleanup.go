package recipe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
)

// CleanupTimeout bounds a delete of a recipe's own node that runs under a
// context of its own (the caller's may have ended), before the node is
// handed to the client's background deletion.
const CleanupTimeout = 5 * time.Second

// DeleteNode deletes a recipe's own node in the session that created it,
// under ctx. A node already gone is no error. If that session is lost, the
// node is gone with it: nothing is sent, and the error wraps
// framework.ErrSessionChanged. Any other failure hands the node to the
// client's background deletion, which retries until it is gone, and is
// returned.
func DeleteNode(ctx context.Context, client *framework.Client, node framework.Node) error {
	if node.Session.IsLost() {
		return fmt.Errorf("%w: %s went with its session", framework.ErrSessionChanged, node.Path)
	}
	err := client.Delete(framework.BindSession(ctx, node.Session), node.Path, -1)
	switch {
	case err == nil, errors.Is(err, zk.ErrNoNode):
		return nil
	case errors.Is(err, framework.ErrSessionChanged):
		return err
	case node.Session.IsLost():
		return fmt.Errorf("%w: %w", framework.ErrSessionChanged, err)
	}
	_, _ = client.DeleteInBackground(node.Path)
	return err
}
