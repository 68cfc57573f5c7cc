package node

import (
	"context"
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
)

// GroupMember is membership of a group (Curator's GroupMember): an
// ephemeral node named by the member's id under the group's path, kept
// as a Node keeps its node, and the group's members read from a cache of
// the path's children. Make it with NewGroupMember.
type GroupMember struct {
	path  string
	id    string
	node  *Node
	cache *cache.Cache
}

// NewGroupMember returns the membership of id, with data, in the group
// at path. It validates and does no I/O: Start joins.
func NewGroupMember(client *framework.Client, path, id string, data []byte, opts ...Option) (*GroupMember, error) {
	if err := zkpath.ValidateName(id); err != nil {
		return nil, fmt.Errorf("group member %s: %w: id %q: %w", path, ErrInvalidArgument, id, err)
	}
	n, err := New(client, zkpath.Join(path, id), framework.Ephemeral, data, opts...)
	if err != nil {
		return nil, err
	}
	c, err := cache.New(client, path, cache.WithMaxDepth(1))
	if err != nil {
		return nil, err
	}
	return &GroupMember{path: path, id: id, node: n, cache: c}, nil
}

// Path returns the group's path, as given to NewGroupMember.
func (g *GroupMember) Path() string { return g.path }

// ID returns the member's id.
func (g *GroupMember) ID() string { return g.id }

// Node returns the member's node, as Node.Node does.
func (g *GroupMember) Node() string { return g.node.Node() }

// Start joins the group and starts reading its members, in the
// background, until ctx ends or Close; as Node.Start and Cache.Start do.
func (g *GroupMember) Start(ctx context.Context) error {
	if err := g.cache.Start(ctx); err != nil {
		return fmt.Errorf("group member %s: %w", g.path, err)
	}
	if err := g.node.Start(ctx); err != nil {
		_ = g.cache.Close(ctx)
		return fmt.Errorf("group member %s: %w", g.path, err)
	}
	return nil
}

// AwaitJoined waits until the member's node was created and the group's
// members, read from then on, include it.
func (g *GroupMember) AwaitJoined(ctx context.Context) error {
	own := zkpath.Join(g.path, g.id)
	seen := make(chan struct{}, 1)
	remove := g.cache.AddListener(func(ev cache.Event) {
		if ev.Path == own && ev.Type != cache.Deleted {
			select {
			case seen <- struct{}{}:
			default:
			}
		}
	})
	defer remove()
	if err := g.node.AwaitCreated(ctx); err != nil {
		return err
	}
	if err := g.cache.AwaitInitialized(ctx); err != nil {
		return err
	}
	if _, ok := g.cache.Get(own); ok {
		return nil
	}
	select {
	case <-seen:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("group member %s: await joined: %w", g.path, ctx.Err())
	}
}

// SetData sets the member's data, as Node.SetData does.
func (g *GroupMember) SetData(ctx context.Context, data []byte) error {
	return g.node.SetData(ctx, data)
}

// Members returns the group's members, by id, with their data, as the
// cache holds them: no request.
func (g *GroupMember) Members() map[string][]byte {
	names, _ := g.cache.Children(g.path)
	out := make(map[string][]byte, len(names))
	for _, name := range names {
		if e, ok := g.cache.Get(zkpath.Join(g.path, name)); ok {
			out[name] = e.Data
		}
	}
	return out
}

// AddListener hears the group's changes: a member joining (Created),
// changing its data (Changed) or leaving (Deleted), as cache.ForChildren
// tells them.
func (g *GroupMember) AddListener(l cache.Listener) (remove func()) {
	return g.cache.AddListener(cache.ForChildren(g.path, l))
}

// Close leaves the group (the member's node is deleted) and stops reading
// it.
func (g *GroupMember) Close(ctx context.Context) error {
	return errors.Join(g.node.Close(ctx), g.cache.Close(ctx))
}

// Done returns a channel closed once the membership has stopped (Start's
// ctx ended, Close, or the client was closed).
func (g *GroupMember) Done() <-chan struct{} { return g.node.Done() }

// Err returns why the membership stopped on its own, as Node.Err does.
func (g *GroupMember) Err() error { return errors.Join(g.node.Err(), g.cache.Err()) }
