package mutex

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/holdwatch"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Hold is one owner's hold on a Mutex. Reentrant acquires by the same owner
// return the same Hold and count up; the lock is released when the count
// returns to zero.
//
// A hold can end without a release: see Lost. Holding is never certain
// until release, since the server may have expired the session already;
// use FencingToken to let a resource reject a stale holder, or Guard to
// have the server apply a write only while the lock is held.
type Hold struct {
	m     *Mutex
	owner any
	count int             // guarded by m.mu
	watch holdwatch.Watch // in the Hold: one allocation fewer; has the node
	fence recipe.Fence
}

func newHold(m *Mutex, owner any, a acquired) *Hold {
	h := &Hold{m: m, owner: owner, count: 1}
	cfg := holdwatch.Config{Kind: &m.kind, Node: a.node, Watch: a.ownWatch}
	if a.sub != nil {
		// The directory watch tells of the node's events (through the
		// client's hold fan-out) for as long as the hold keeps it.
		// With revocation the hold reads its node's data once anyway (below).
		cfg.Covered, cfg.Done = m.opts.revoke == nil, a.sub.release
	}
	if m.opts.revoke != nil {
		// A revocation may have been written while we waited, and the
		// wait's watch on our node consumed its event: the hold reads the
		// node's data afresh as it sets its own watch.
		cfg.Watch = nil
		cfg.OnData = func(data []byte) {
			// Called only once the watch is armed, below: h is complete.
			if bytes.Equal(data, []byte(zkpath.RevokeMessage)) {
				m.opts.revoke(h) // on a goroutine of the watch's; it may call Release
			}
		}
	}
	h.watch.Start(cfg)
	if a.sub != nil {
		// After a reconnect the server says nothing of what changed while
		// the client was away: the hold reads its node.
		a.sub.hand(a.node.Path, h.watch.Recheck)
	}
	if m.opts.revoke != nil {
		h.watch.Arm()
	}
	return h
}

// Lost returns a channel that is closed when the hold ends without a
// release: the connection was suspended (under the standard error policy),
// the session was lost, or the lock node was deleted by someone else. The
// first call starts watching the node (one request), unless a wait for the
// lock had set that watch already; loss of the connection or session is
// signalled whether or not Lost was called.
func (h *Hold) Lost() <-chan struct{} { return h.watch.Lost() }

// Err returns nil while the hold lasts; after a loss, an error that wraps
// ErrLost and says why; after the final release, an error wrapping
// ErrReleased.
func (h *Hold) Err() error { return h.watch.Err() }

// Node returns the lock node's path, relative to the client's namespace.
func (h *Hold) Node() string { return h.watch.Node().Path }

// Client returns the client the lock node was created through.
func (h *Hold) Client() *framework.Client { return h.m.client }

// Session returns the session the lock node belongs to.
func (h *Hold) Session() *framework.Session { return h.watch.Node().Session }

// FencingToken returns the lock node's creation zxid. It grows from one
// holder of the lock to the next, so a resource that remembers the highest
// token it has seen can refuse a holder that has lost the lock without
// knowing it. It is read from the server on the first call only. Where
// the resource is data in ZooKeeper itself, Guard is stronger: the server
// refuses the stale holder's write, and no resource keeps a token.
func (h *Hold) FencingToken(ctx context.Context) (int64, error) {
	token, err := h.fence.Token(ctx, h.m.client, h.watch.Node(), true)
	if err != nil {
		return 0, fmt.Errorf("%s: fencing token: %w", h.m.opts.name, err)
	}
	return token, nil
}

// Guard returns an operation for framework.Client.Multi that fails the
// transaction unless the hold's lock node is still on the server, so that
// a write in the same transaction is applied only while the lock is held,
// atomically, by the server itself:
//
//	_, err := client.Multi(ctx, hold.Guard(), framework.SetOp("/config", data, -1))
//
// A transaction that the guard fails returns an error wrapping ErrLost
// that names the lock node, and writes nothing. The node is an ephemeral
// of the holder's session whose name is protected (a fresh protection id),
// so its existence proves that it is this hold's node, in its session, and
// that the hold stands: a node queued behind it holds only once it is
// gone (for a read hold: no writer holds). The check takes any version of the
// node: a revocation request (Revoke) writes into it without ending the
// hold. A guard taken once the hold has ended (Err is not nil: released,
// or signalled lost) fails the transaction even while the node is still
// there. Guard sends nothing; any client of the ensemble may run the
// transaction.
//
// A guard is stronger than a fencing token: it needs no resource that
// keeps the highest token, only data kept in the same ZooKeeper.
//
// A guarded transaction whose answer is lost follows the rule of
// framework.Client.Multi: it is never applied twice, and never reported
// failed after it ran. When the client cannot prove whether it ran (a
// transaction with a set or a delete, say), it returns
// framework.ErrOutcomeUnknown, not ErrLost: read to learn which.
func (h *Hold) Guard() framework.Op {
	return recipe.Guard(h.Node(), -1, h.watch.Err())
}

// Release gives up one level of the hold for its owner, whichever
// goroutine calls it: possession of the Hold stands for ownership. See
// Mutex.Release.
func (h *Hold) Release(ctx context.Context) error {
	return h.m.release(ctx, h.owner, h)
}

// finish ends the hold on the final release and deletes the node, under
// the library's rule for finishing after ctx has ended
// (recipe.FinishContext).
func (h *Hold) finish(ctx context.Context) error {
	if prior, _ := h.watch.Finish(errReleased); prior != nil {
		if h.m.opts.keep {
			// Kept for this release (WithNodeKeptOnLoss), which deletes it
			// as any release does; a failure leaves it to the client's
			// background deletion, and a lost session has taken it.
			_ = recipe.DeleteNode(ctx, h.m.client, h.watch.Node())
		}
		return prior // the node is gone, or being deleted
	}
	// A node whose delete fails stays tracked until it is gone (Curator's
	// CURATOR-678).
	switch err := recipe.DeleteNode(ctx, h.m.client, h.watch.Node()); {
	case err == nil:
		return nil
	default:
		return finishError(err)
	}
}

// finishError is the error of a release whose delete failed with err: the
// hold was lost if its session changed (the message names the library
// once), else the node is deleted in the background.
func finishError(err error) error {
	if errors.Is(err, framework.ErrSessionChanged) {
		return recipe.Errorf("%w: %w", ErrLost, err)
	}
	return fmt.Errorf("deletion continues in the background: %w", err)
}

// errReleased is the Err of a released hold: ErrReleased, as a released
// lease's is.
var errReleased = fmt.Errorf("mutex: %w", ErrReleased)
