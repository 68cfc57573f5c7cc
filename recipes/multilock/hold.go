package multilock

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Hold is one acquire's hold on every part of a Lock. It keeps each
// part's own hold, in order (Parts). An owner that acquires the Lock again
// gets a Hold of its own, whose reentrant parts are the same part holds
// counted up; each Hold is released once.
//
// Holding is never certain until release: a part may have been lost
// already. Lost and Err say when any part is; FencingTokens lets resources
// refuse a stale holder.
type Hold struct {
	lock  *Lock
	parts []PartHold
	done  chan struct{} // closed by Release; ends the watch of Lost

	watchOnce sync.Once
	lost      chan struct{} // closed when a part is lost (Lost)

	mu       sync.Mutex // guards released
	released bool
}

func newHold(l *Lock, parts []PartHold) *Hold {
	return &Hold{lock: l, parts: parts, done: make(chan struct{}), lost: make(chan struct{})}
}

// Parts returns the parts' holds, in the order the parts were taken: a
// *mutex.Hold for a mutex, read or write lock, a *leases.Lease for a
// semaphore mutex.
func (h *Hold) Parts() []PartHold { return slices.Clone(h.parts) }

// Nodes returns the paths of the parts' nodes, relative to the client's
// namespace, in the order the parts were taken (each part's Node).
func (h *Hold) Nodes() []string {
	nodes := make([]string, len(h.parts))
	for i, p := range h.parts {
		nodes[i] = p.Node()
	}
	return nodes
}

// Lost returns a channel that is closed when any part's hold ends without
// a release (see each part's Lost: the connection suspended under the
// standard error policy, the session lost, a node deleted by someone
// else); Err then says which part. The first call starts each part's own
// watch (for a lock part, a request to watch its node, unless its wait set
// one already) and one goroutine that ends at the first loss or at
// Release. A Hold released before any loss never closes it.
func (h *Hold) Lost() <-chan struct{} {
	h.watchOnce.Do(h.watch)
	return h.lost
}

// watch closes h.lost at the first part's loss.
func (h *Hold) watch() {
	cases := make([]reflect.SelectCase, 0, len(h.parts)+1)
	cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(h.done)})
	for _, p := range h.parts {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(p.Lost())})
	}
	// Ends at Release (done) or at the first part's loss.
	go func() {
		if chosen, _, _ := reflect.Select(cases); chosen > 0 {
			close(h.lost)
		}
	}()
}

// Err returns nil while every part is held; after a part's loss, an error
// that names the first lost part (in order) and wraps its error, and so
// ErrLost; after Release, an error wrapping ErrReleased.
func (h *Hold) Err() error {
	h.mu.Lock()
	released := h.released
	h.mu.Unlock()
	if released {
		return fmt.Errorf("multilock: %s: %w", h.lock.describe(), ErrReleased)
	}
	for i, p := range h.parts {
		if err := p.Err(); err != nil {
			return fmt.Errorf("multilock: part %d, %s: %w", i, h.lock.parts[i].Path(), err)
		}
	}
	return nil
}

// FencingTokens returns each part's fencing token, in the order of the
// parts: for a mutex, read or write lock the creation zxid of its node,
// for a semaphore mutex its lease's token (see leases.Lease.FencingToken).
// Each grows from one holder of its lock to the next, so a resource
// guarded by part i refuses a stale holder by keeping the highest token i
// it has seen; the tokens of different parts are not comparable with each
// other. A part's token costs one read on the first call at most. A lost
// part fails the call with its error.
func (h *Hold) FencingTokens(ctx context.Context) ([]int64, error) {
	tokens := make([]int64, len(h.parts))
	for i, p := range h.parts {
		t, err := p.FencingToken(ctx)
		if err != nil {
			return nil, fmt.Errorf("multilock: fencing token of %s: %w", h.lock.parts[i].Path(), err)
		}
		tokens[i] = t
	}
	return tokens, nil
}

// Guards returns every part's guard (see mutex.Hold.Guard and
// leases.Lease.Guard), one per part, in the order of the parts, all to go
// in the same Client.Multi: a transaction that carries them applies its
// other operations only while every part is still held as handed out,
// checked by the server together with those operations, and otherwise
// fails with an error wrapping ErrLost that names the part's node:
//
//	ops := append(hold.Guards(), framework.SetOp("/config", data, -1))
//	_, err := client.Multi(ctx, ops...)
//
// Any client may run the transaction: a guard checks the part's node, not
// the session of the client that sends it. A transaction whose answer was
// lost follows Client.Multi's rule: never applied twice, and
// ErrOutcomeUnknown when the client cannot prove whether it ran.
func (h *Hold) Guards() []framework.Op {
	ops := make([]framework.Op, len(h.parts))
	for i, p := range h.parts {
		ops[i] = p.Guard()
	}
	return ops
}

// Release gives up every part, in reverse order, whichever goroutine calls
// it: possession of the Hold stands for ownership, as with mutex.Hold. A
// part held again by the same owner is counted down, not deleted. Like
// every release of the library, it finishes after ctx has ended. It tries
// every part whatever the others give, and returns their errors joined (a
// part lost gives one wrapping ErrLost); a second Release returns
// ErrReleased and changes nothing.
func (h *Hold) Release(ctx context.Context) error {
	h.mu.Lock()
	if h.released {
		h.mu.Unlock()
		return fmt.Errorf("multilock: release %s: %w", h.lock.describe(), ErrReleased)
	}
	h.released = true
	close(h.done)
	h.mu.Unlock()
	if err := h.lock.releaseAll(ctx, h.parts); err != nil {
		return fmt.Errorf("multilock: release %s: %w", h.lock.describe(), err)
	}
	return nil
}

// releaseAll gives up one level of each of held, the holds of the first
// len(held) parts, in reverse order, and joins their errors.
func (l *Lock) releaseAll(ctx context.Context, held []PartHold) error {
	var errs []error
	for i := len(held) - 1; i >= 0; i-- {
		if err := l.parts[i].release(ctx, held[i]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
