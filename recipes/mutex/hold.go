package mutex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// Hold is one owner's hold on a Mutex. Reentrant acquires by the same owner
// return the same Hold and count up; the lock is released when the count
// returns to zero.
//
// A hold can end without a release: see Lost. Holding is never certain
// until release, since the server may have expired the session already;
// use FencingToken to let a resource reject a stale holder.
type Hold struct {
	m     *Mutex
	owner any
	node  framework.Node
	count int // guarded by m.mu

	lost     chan struct{} // closed on loss
	released chan struct{} // closed on the final release
	arm      chan struct{} // closed to ask the monitor to watch the node
	armOnce  sync.Once

	mu    sync.Mutex // guards err and fence
	err   error
	fence int64
}

func newHold(m *Mutex, owner any, a acquired) *Hold {
	h := &Hold{
		m: m, owner: owner, node: a.node, count: 1,
		lost: make(chan struct{}), released: make(chan struct{}), arm: make(chan struct{}),
	}
	if m.opts.revoke != nil {
		h.armOnce.Do(func() { close(h.arm) })
	}
	// Ends on the final release, or on loss.
	go h.monitor(a.ownWatch)
	return h
}

// Lost returns a channel that is closed when the hold ends without a
// release: the connection was suspended (under the standard error policy),
// the session was lost, or the lock node was deleted by someone else. The
// first call starts watching the node (one request), unless a wait for the
// lock had set that watch already; loss of the connection or session is
// signalled whether or not Lost was called.
func (h *Hold) Lost() <-chan struct{} {
	h.armOnce.Do(func() { close(h.arm) })
	return h.lost
}

// Err returns nil while the hold lasts; after a loss, an error that wraps
// ErrLost and says why; after the final release, an error saying so.
func (h *Hold) Err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// Path returns the lock node's path, relative to the client's namespace.
func (h *Hold) Path() string { return h.node.Path }

// Session returns the session the lock node belongs to.
func (h *Hold) Session() *framework.Session { return h.node.Session }

// FencingToken returns the lock node's creation zxid. It grows from one
// holder of the lock to the next, so a resource that remembers the highest
// token it has seen can refuse a holder that has lost the lock without
// knowing it. It is read from the server on the first call only.
func (h *Hold) FencingToken(ctx context.Context) (int64, error) {
	h.mu.Lock()
	fence := h.fence
	h.mu.Unlock()
	if fence != 0 {
		return fence, nil
	}
	ok, stat, err := h.m.client.Exists(framework.BindSession(ctx, h.node.Session), h.node.Path)
	switch {
	case err != nil:
		return 0, fmt.Errorf("mutex: fencing token: %w", err)
	case !ok:
		return 0, fmt.Errorf("%w: %s was deleted", ErrLost, h.node.Path)
	}
	h.mu.Lock()
	h.fence = stat.Czxid
	h.mu.Unlock()
	return stat.Czxid, nil
}

// Release gives up one level of the hold for its owner, whichever
// goroutine calls it: possession of the Hold stands for ownership. See
// Mutex.Release.
func (h *Hold) Release() error {
	return h.m.release(h.owner, h)
}

// monitor watches for the end of the hold: the connection or session, per
// the error policy, and, once armed, the node itself. It never waits on the
// server, so that a suspension is seen at once.
func (h *Hold) monitor(watch <-chan zk.Event) {
	interrupted := h.node.Session.Interrupted(h.m.opts.policy)
	arm := h.arm
	watched := make(chan (<-chan zk.Event), 1)
	for {
		select {
		case <-h.released:
			return
		case <-interrupted:
			h.lose(fmt.Errorf("%w: %s", ErrLost, interruption(h.node.Session)))
			return
		case <-arm:
			arm = nil
			if watch == nil {
				// Ends when the server answers, within cleanupTimeout.
				go h.watchNode(watched)
			}
		case watch = <-watched:
		case ev := <-watch:
			if ev.Type == zk.EventNodeDeleted {
				h.lose(fmt.Errorf("%w: %s was deleted", ErrLost, h.node.Path))
				return
			}
			watch = nil
			go h.watchNode(watched) // data changed, or the watch was dropped
		}
	}
}

// watchNode sets a watch on the lock node and sends it to watched, and
// answers a revocation request found in the node's data. A missing node is
// a loss.
func (h *Hold) watchNode(watched chan<- (<-chan zk.Event)) {
	ctx, cancel := context.WithTimeout(framework.BindSession(context.Background(), h.node.Session), cleanupTimeout)
	defer cancel()
	data, _, watch, err := h.m.client.GetW(ctx, h.node.Path)
	switch {
	case isNoNode(err):
		h.lose(fmt.Errorf("%w: %s was deleted", ErrLost, h.node.Path))
		return
	case err != nil:
		return // the connection or session signal decides
	}
	watched <- watch
	if h.m.opts.revoke != nil && bytes.Equal(data, []byte(zkpath.RevokeMessage)) {
		h.m.opts.revoke(h)
	}
}

// lose ends the hold: it records why, closes Lost, and deletes the node
// once connected, so that a hold given up on suspension frees the lock if
// the session survives.
func (h *Hold) lose(err error) {
	h.mu.Lock()
	if h.err != nil {
		h.mu.Unlock()
		return
	}
	h.err = err
	h.mu.Unlock()
	close(h.lost)
	h.m.client.Logger().Warn("lock hold lost", "path", h.node.Path, "err", err)
	if !h.node.Session.IsLost() {
		_, _ = h.m.client.DeleteInBackground(h.node.Path)
	}
}

// finish ends the hold on the final release and deletes the node.
func (h *Hold) finish() error {
	close(h.released)
	if err := h.Err(); err != nil {
		return err // the node is gone, or being deleted
	}
	h.mu.Lock()
	h.err = errReleased
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	err := h.m.client.Delete(framework.BindSession(ctx, h.node.Session), h.node.Path, -1)
	switch {
	case err == nil, isNoNode(err):
		return nil
	case errors.Is(err, framework.ErrSessionChanged):
		return fmt.Errorf("%w: %w", ErrLost, err)
	}
	// Keep the node tracked until it is gone (Curator's CURATOR-678).
	_, _ = h.m.client.DeleteInBackground(h.node.Path)
	return fmt.Errorf("mutex: release %s: deletion continues in the background: %w", h.node.Path, err)
}

// errReleased is the Err of a released hold.
var errReleased = errors.New("mutex: released")

func interruption(s *framework.Session) string {
	if s.IsLost() {
		return "session lost"
	}
	return "connection suspended"
}
