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
// is deleted once the puts under way are done, under a context of its own
// (deleteMarker), whether or not ctx has ended: ctx bounds only the wait
// for those puts, and a close that stops waiting leaves the delete to a
// goroutine that waits on. Closes may run at once: the marker is taken
// under mu, so one of them deletes it.
func (pr *producer) close(ctx context.Context) error {
	pr.mu.Lock()
	pr.closed = true
	flushed := pr.flushed
	pr.mu.Unlock()
	// A flush that has ended already goes first: with ctx ended too, a
	// select would pick either at random.
	if flushed != nil && !ended(flushed) {
		select {
		case <-flushed:
		case <-ctx.Done():
			go func() { // ends once the flush under way has, which the client's retry policy bounds
				<-flushed
				pr.dropMarker()
			}()
			return fmt.Errorf("%s: close: %w", pr.c.what, ctx.Err())
		}
	}
	pr.dropMarker()
	return nil
}

// dropMarker deletes the producer's marker, if it has one, once no flush
// runs nor will (the producer is closed).
func (pr *producer) dropMarker() {
	pr.mu.Lock()
	m := pr.marker
	pr.marker = nil
	pr.mu.Unlock()
	if m != nil {
		pr.c.deleteMarker(m)
	}
}

// ended reports whether ch is closed, without waiting.
func ended(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
