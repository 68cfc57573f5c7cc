package barrier

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Leave takes the member out of the barrier and blocks until every member
// has left, following Curator's protocol so that Go and Java members leave
// together: the member whose node is first in name order keeps its node
// until it is the last, watching the last node; every other member deletes
// its node and watches the first. The member that finds no node left
// deletes ready, so that the barrier can be entered again.
//
// Leave waits until no member's node is left, where Curator 5.4 stops
// waiting when one node other than its own is left (it takes that for the
// first member's, about to go). When ctx ends, or on an error, the member's
// node is deleted all the same, under a context of its own: the member has
// left, without waiting for the others. A member whose node went before it
// left (its session lost, someone else's delete) gets ErrLost; a second
// Leave gets ErrReleased.
func (m *Member) Leave(ctx context.Context) error {
	if !m.leaving.CompareAndSwap(false, true) {
		return fmt.Errorf("barrier: leave %s: member %s: %w", m.d.path, m.name, ErrReleased)
	}
	err := m.leave(ctx)
	m.abandon(ctx)
	return err
}

func (m *Member) leave(ctx context.Context) error {
	for {
		names, err := m.d.memberNames(ctx)
		if err != nil {
			return m.d.errorf("leave", err)
		}
		i := slices.Index(names, m.name)
		if i < 0 && m.live {
			return m.lostError()
		}
		if len(names) == 0 {
			break
		}
		if i == 0 && len(names) == 1 { // the last one
			if err := m.deleteOwn(ctx); err != nil {
				return err
			}
			break
		}
		watch := names[0] // the first member goes last
		if i == 0 {
			watch = names[len(names)-1]
		} else if err := m.deleteOwn(ctx); err != nil {
			return err
		}
		if err := m.awaitGone(ctx, zkpath.Join(m.d.path, watch)); err != nil {
			return err
		}
	}
	m.deleteReady(ctx)
	return nil
}

// deleteOwn deletes the member's node, once: a node already gone counts
// as deleted (a delete whose answer was lost meets it so), unless its
// session is gone, which took it before the member left.
func (m *Member) deleteOwn(ctx context.Context) error {
	if !m.live {
		return nil
	}
	err := m.d.client.Delete(framework.BindSession(ctx, m.session), m.node, -1)
	switch {
	case errors.Is(err, framework.ErrSessionChanged):
		return m.lostError()
	case err == nil, recipe.IsNoNode(err):
		m.live = false
		return nil
	}
	return m.d.errorf("leave", err)
}

// awaitGone waits until the node at path changes, or is gone. While the
// member still has its node, the loss of its session ends the wait with
// ErrLost.
func (m *Member) awaitGone(ctx context.Context, path string) error {
	there, _, changed, err := m.d.client.ExistsW(ctx, path)
	if err != nil {
		return m.d.errorf("leave", err)
	}
	if !there {
		return nil
	}
	var lost <-chan struct{}
	if m.live {
		lost = m.session.Lost()
	}
	select {
	case <-changed: // look again, whatever the event
		return nil
	case <-lost:
		return m.lostError()
	case <-ctx.Done():
		return m.d.errorf("leave", ctx.Err())
	}
}

// deleteReady deletes the ready node once every member has left, so that
// the next round waits for its own. Every leaving member does it; a
// failure is logged, as another member's delete may succeed.
func (m *Member) deleteReady(ctx context.Context) {
	err := m.d.client.Delete(ctx, m.d.readyPath(), -1)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		m.d.opts.log(m.d.client).Warn("could not delete the double barrier's ready node",
			recipe.LogAttr("path", m.d.path), recipe.ErrAttr(err))
	}
}
