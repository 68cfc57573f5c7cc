package queue

import (
	"context"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// waitRoom waits until the queue's directory holds fewer children than
// its maximum (WithMaxItems), counting every child as Curator does. A
// queue with room costs one listing; a full one, a listing with a watch
// per change until there is room.
func (c *core) waitRoom(ctx context.Context) error {
	watch := false // the first look sets no watch: most find room
	for {
		var (
			names   []string
			changed <-chan zk.Event
			err     error
		)
		if watch {
			names, _, changed, err = c.client.ChildrenW(ctx, c.path)
		} else {
			names, _, err = c.client.Children(ctx, c.path)
		}
		switch {
		case recipe.IsNoNode(err):
			return nil // empty: the put makes the directory
		case err != nil:
			return fmt.Errorf("%s: put: wait for room: %w", c.what, err)
		case len(names) < c.opts.maxItems:
			return nil
		case !watch:
			watch = true
			continue
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("%s: put: wait for room: %w", c.what, ctx.Err())
		}
	}
}
