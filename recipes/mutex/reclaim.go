package mutex

import (
	"context"
	"errors"
	"fmt"
)

// errReclaimed is the Err of a hold whose node a later hold took over
// (Reclaim).
var errReclaimed = errors.New("mutex: node reclaimed by a later hold")

// Reclaim takes the lock again with the node of h, a hold of its owner
// that ended, or is to end, while its session lives: lost to a suspended
// connection or a lease run out with its node kept (WithNodeKeptOnLoss),
// or still standing. It is for a recipe whose holder gives a hold up at a
// blip but keeps its place in line, as Curator's LeaderLatch keeps its
// node across a short disconnect.
//
// Reclaim waits until the client is connected, checks that h's session is
// still the client's, and judges the queue from a listing read afresh in
// that session, waiting in line with the node as Acquire does: a node is
// never taken as held on an older look, nor after its session changed.
// The returned hold stands on the same node, with a loss signal of its
// own; h is spent (its Release returns ErrReleased), and the owner's hold
// is the new one. On failure (the session changed, the node is gone, the
// session was interrupted again as the lock was taken, ctx ended) h stays
// the owner's, and its release deletes the node as usual.
func (m *Mutex) Reclaim(ctx context.Context, h *Hold) (*Hold, error) {
	fail := func(err error) (*Hold, error) {
		return nil, fmt.Errorf("%s: reclaim %s: %w", m.opts.name, h.Node(), err)
	}
	if err := m.reclaimable(h); err != nil {
		return fail(err)
	}
	node := h.watch.Node()
	if err := m.client.WaitConnected(ctx); err != nil {
		return fail(err)
	}
	if m.client.Session() != node.Session || node.Session.IsLost() {
		return fail(fmt.Errorf("%w: the node's session is no longer the client's", ErrLost))
	}
	a, err := m.engine.wait(ctx, node, nil, false)
	if err == nil && node.Session.IsInterrupted(m.opts.policy) {
		err = fmt.Errorf("%w: connection or session lost as the lock was taken", ErrLost)
	}
	if err != nil {
		return fail(err)
	}
	next := newHold(m, h.owner, a)
	m.mu.Lock()
	defer m.mu.Unlock()
	if state, _ := m.owners.get(h.owner); state.hold != h || h.count == 0 {
		// Released meanwhile, by its owner: the node is gone or going.
		next.watch.Finish(errReleased)
		return fail(ErrReleased)
	}
	h.watch.Finish(errReclaimed) // a hold not lost stops watching
	next.count, h.count = h.count, 0
	m.owners.set(h.owner, ownerState{hold: next})
	return next, nil
}

// reclaimable says why h cannot be reclaimed, or nil.
func (m *Mutex) reclaimable(h *Hold) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	state, _ := m.owners.get(h.owner)
	switch {
	case state.hold != h || h.count == 0:
		return ErrReleased
	case h.Err() != nil && !m.opts.keep:
		return fmt.Errorf("%w: a lost hold's node is deleted at once without WithNodeKeptOnLoss", ErrInvalidArgument)
	}
	return nil
}
