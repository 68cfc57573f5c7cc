package chaos

import (
	"context"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// CuratorPeer is what a run needs of the Curator interop peer
// (internal/zktest's Curator): a Java process whose named handles take
// Curator's InterProcessMutex and InterProcessSemaphoreV2.
type CuratorPeer interface {
	MutexAcquire(ctx context.Context, handle, path string, timeout time.Duration) (bool, error)
	MutexRelease(ctx context.Context, handle string) error
	SemAcquire(ctx context.Context, handle, path string, maxLeases, qty int, timeout time.Duration) ([]string, bool, error)
	SemRelease(ctx context.Context, handle string) error
}

// Bounds of a command to the peer. The peer's own acquire timeout is short,
// so that a run can end; the wait for its answer is long, since a command
// given up on the Go side still runs in the peer, and a late acquire would
// keep a lock nobody records.
const (
	curatorAttempt = 2 * time.Second
	curatorAnswer  = 2 * time.Minute
)

// CuratorMutex is a Locker on Curator's InterProcessMutex at Path, through
// one handle of the peer. Its holds are never signalled lost (Curator's
// mutex has no such signal); their fencing token is the czxid of the first
// node in the queue, read through Observer.
type CuratorMutex struct {
	Peer     CuratorPeer
	Handle   string
	Path     string
	Observer *framework.Client
}

// Exclusive returns true.
func (c CuratorMutex) Exclusive() bool { return true }

// Acquire asks the peer for the lock until it holds it or ctx ends.
func (c CuratorMutex) Acquire(ctx context.Context) (Held, error) {
	for {
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), curatorAnswer)
		ok, err := c.Peer.MutexAcquire(actx, c.Handle, c.Path, curatorAttempt)
		cancel()
		switch {
		case err != nil:
			return nil, fmt.Errorf("curator mutex %s: %w", c.Path, err)
		case ok:
			return curatorMutexHeld{c}, nil
		case ctx.Err() != nil:
			return nil, ctx.Err()
		}
	}
}

type curatorMutexHeld struct{ c CuratorMutex }

func (h curatorMutexHeld) Lost() <-chan struct{} { return nil }

// FencingToken reads the czxid of the head of the queue, which is the
// peer's node while the peer holds the lock.
func (h curatorMutexHeld) FencingToken(ctx context.Context) (int64, error) {
	// The observer's server syncs with the leader first: a follower behind
	// it may still list the previous holder's node.
	if err := h.c.Observer.Sync(ctx, h.c.Path); err != nil {
		return 0, err
	}
	children, _, err := h.c.Observer.Children(ctx, h.c.Path)
	if err != nil {
		return 0, err
	}
	zkpath.SortNodes(children, zkpath.LockName)
	if len(children) == 0 {
		return 0, fmt.Errorf("curator mutex %s: no node while held", h.c.Path)
	}
	ok, stat, err := h.c.Observer.Exists(ctx, zkpath.Join(h.c.Path, children[0]))
	if err != nil || !ok {
		return 0, err
	}
	return stat.Czxid, nil
}

func (h curatorMutexHeld) Node() string { return "" }

func (h curatorMutexHeld) Release(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), curatorAnswer)
	defer cancel()
	return h.c.Peer.MutexRelease(ctx, h.c.Handle)
}

// CuratorSemaphore is a Locker on Curator's InterProcessSemaphoreV2 at
// Path with Max leases, one lease at a time, through one handle of the
// peer. Its leases are never signalled lost.
type CuratorSemaphore struct {
	Peer   CuratorPeer
	Handle string
	Path   string
	Max    int
}

// Exclusive returns false.
func (c CuratorSemaphore) Exclusive() bool { return false }

// Acquire asks the peer for a lease until it has one or ctx ends.
func (c CuratorSemaphore) Acquire(ctx context.Context) (Held, error) {
	for {
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), curatorAnswer)
		names, ok, err := c.Peer.SemAcquire(actx, c.Handle, c.Path, c.Max, 1, curatorAttempt)
		cancel()
		switch {
		case err != nil:
			return nil, fmt.Errorf("curator semaphore %s: %w", c.Path, err)
		case ok:
			node := ""
			if len(names) == 1 {
				node = zkpath.Join(c.Path, "leases", names[0])
			}
			return curatorLeaseHeld{c: c, node: node}, nil
		case ctx.Err() != nil:
			return nil, ctx.Err()
		}
	}
}

type curatorLeaseHeld struct {
	c    CuratorSemaphore
	node string
}

func (h curatorLeaseHeld) Lost() <-chan struct{} { return nil }

func (h curatorLeaseHeld) FencingToken(context.Context) (int64, error) { return 0, nil }

func (h curatorLeaseHeld) Node() string { return h.node }

func (h curatorLeaseHeld) Release(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), curatorAnswer)
	defer cancel()
	return h.c.Peer.SemRelease(ctx, h.c.Handle)
}
