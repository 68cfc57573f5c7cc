package barrier

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Barrier holds processes back while its node exists (Curator's
// DistributedBarrier): Set creates the node, Wait blocks until it is gone,
// Remove deletes it and lets every waiter through. It is safe for
// concurrent use.
type Barrier struct {
	client *framework.Client
	path   string
	opts   options
}

// New returns the barrier whose node is path. It checks its arguments and
// does no I/O.
func New(client *framework.Client, path string, opts ...Option) (*Barrier, error) {
	if err := recipe.CheckPath(client, path, ErrInvalidArgument); err != nil {
		return nil, err
	}
	o, err := recipe.Options(opts, ErrInvalidArgument)
	if err != nil {
		return nil, err
	}
	return &Barrier{client: client, path: path, opts: o}, nil
}

// Path returns the path of the barrier's node.
func (b *Barrier) Path() string { return b.path }

// Set creates the barrier's node, with container parents; a barrier set
// already is no error.
func (b *Barrier) Set(ctx context.Context) error {
	_, err := b.client.Create(ctx, b.path, nil, framework.Persistent, framework.WithParents())
	if err == nil || errors.Is(err, zk.ErrNodeExists) {
		return nil
	}
	return fmt.Errorf("barrier: set %s: %w", b.path, err)
}

// Remove deletes the barrier's node, which lets every waiter through; a
// barrier not set is no error. A delete whose answer was lost is no error
// either: the node is gone whoever deleted it.
func (b *Barrier) Remove(ctx context.Context) error {
	err := b.client.Delete(ctx, b.path, -1)
	if err == nil || recipe.IsNoNode(err) {
		return nil
	}
	return fmt.Errorf("barrier: remove %s: %w", b.path, err)
}

// Wait blocks until the barrier's node does not exist: at once if it is
// not set. It follows the node with a watch, set again across connection
// loss and session expiry, and returns the error of ctx when ctx ends
// first, or of a server it could not reach within the client's retry
// policy.
func (b *Barrier) Wait(ctx context.Context) error {
	for {
		set, _, changed, err := b.client.ExistsW(ctx, b.path)
		if err != nil {
			return fmt.Errorf("barrier: wait %s: %w", b.path, err)
		}
		if !set {
			return nil
		}
		select {
		case <-changed: // any change, or the watch's end: look again
		case <-ctx.Done():
			return fmt.Errorf("barrier: wait %s: %w", b.path, ctx.Err())
		}
	}
}
