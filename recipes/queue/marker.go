package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// markerName is the name of a producer's marker in the lock path, after
// its protection id. Curator's consumers never list the lock path, and
// their lock nodes are named after items ("queue-..."), so it meets none.
const markerName = "producer"

// markerFor returns the producer's marker in the current session, making
// one if need be; nil without a lock path. The create is protected: its
// lost answer finds the node rather than making a second.
func (pr *producer) markerFor(ctx context.Context) (*marker, error) {
	if pr.c.opts.lockPath == "" {
		return nil, nil
	}
	if m := pr.marker; m != nil && !m.session.IsLost() {
		return m, nil
	}
	for range 2 {
		node, err := pr.c.client.CreateProtected(ctx, zkpath.Join(pr.c.opts.lockPath, markerName), nil, framework.Ephemeral)
		switch {
		case err == nil:
			pr.marker = &marker{path: node.Path, session: node.Session}
			return pr.marker, nil
		case errors.Is(err, zk.ErrNoNode):
			if err := pr.c.ensureDirs(ctx); err != nil {
				return nil, err
			}
			continue
		}
		return nil, fmt.Errorf("%s: put: create marker: %w", pr.c.what, err)
	}
	return nil, fmt.Errorf("%s: put: create marker: %w: lock path %s vanished", pr.c.what, zk.ErrNoNode, pr.c.opts.lockPath)
}

// deleteMarker deletes a marker in the session that made it.
func (c *core) deleteMarker(m *marker) {
	if err := recipe.DeleteNode(context.Background(), c.client, framework.Node{
		Path: m.path, Name: zkpath.Base(m.path), Session: m.session,
	}); err != nil && !errors.Is(err, framework.ErrSessionChanged) {
		c.log().Warn("put marker not deleted", "node", m.path, "err", err)
	}
}

// close ends the producer: later puts fail with ErrClosed, and its marker
// is deleted once the puts under way are done.
func (pr *producer) close(ctx context.Context) error {
	pr.mu.Lock()
	pr.closed = true
	flushed := pr.flushed
	pr.mu.Unlock()
	if flushed != nil {
		select {
		case <-flushed:
		case <-ctx.Done():
			return fmt.Errorf("%s: close: %w", pr.c.what, ctx.Err())
		}
	}
	if m := pr.marker; m != nil { // no flush runs, nor will: the marker is ours
		pr.marker = nil
		pr.c.deleteMarker(m)
	}
	return nil
}
