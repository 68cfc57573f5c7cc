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
// Curator's InterProcessMutex, InterProcessSemaphoreV2 and
// InterProcessReadWriteLock.
//
// Each command returns the peer's own instant on CLOCK_MONOTONIC (see
// Clock): when its acquire returned, or when it began to release.
type CuratorPeer interface {
	MutexAcquireAt(ctx context.Context, handle, path string, timeout time.Duration) (bool, int64, error)
	MutexReleaseAt(ctx context.Context, handle string) (int64, error)
	SemAcquireAt(ctx context.Context, handle, path string, maxLeases, qty int, timeout time.Duration) ([]string, bool, int64, error)
	SemReleaseAt(ctx context.Context, handle string) (int64, error)
	RWAcquireAt(ctx context.Context, handle, path string, write bool, timeout time.Duration) (bool, int64, error)
	RWReleaseAt(ctx context.Context, handle string, write bool) (int64, error)
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
// one handle of the peer; its holds are PeerHeld. Its holds are never signalled lost (Curator's
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
	var at int64
	err := askPeer(ctx, func(ctx context.Context) (ok bool, err error) {
		ok, at, err = c.Peer.MutexAcquireAt(ctx, c.Handle, c.Path, curatorAttempt)
		return ok, err
	})
	if err != nil {
		return nil, fmt.Errorf("curator mutex %s: %w", c.Path, err)
	}
	return curatorMutexHeld{c: c, at: at}, nil
}

// askPeer makes attempts of the peer until one succeeds, fails, or ctx
// ends between attempts. Each attempt waits for the peer's answer however
// ctx ends, so that the peer never holds what nobody records.
func askPeer(ctx context.Context, attempt func(context.Context) (bool, error)) error {
	for {
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), curatorAnswer)
		ok, err := attempt(actx)
		cancel()
		switch {
		case err != nil:
			return err
		case ok:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		}
	}
}

// headToken returns the czxid of the first node of the queue at path,
// sorted by lockNames, as Observer sees it after a sync: the holder's node
// while an exclusive holder holds.
func headToken(ctx context.Context, observer *framework.Client, path string, lockNames ...string) (int64, error) {
	// The observer's server syncs with the leader first: a follower behind
	// it may still list the previous holder's node.
	if err := observer.Sync(ctx, path); err != nil {
		return 0, err
	}
	children, _, err := observer.Children(ctx, path)
	if err != nil {
		return 0, err
	}
	zkpath.SortNodes(children, lockNames...)
	if len(children) == 0 {
		return 0, fmt.Errorf("curator lock %s: no node while held", path)
	}
	ok, stat, err := observer.Exists(ctx, zkpath.Join(path, children[0]))
	if err != nil || !ok {
		return 0, err
	}
	return stat.Czxid, nil
}

type curatorMutexHeld struct {
	c  CuratorMutex
	at int64 // when the peer's acquire returned
}

func (h curatorMutexHeld) AcquiredAt() int64 { return h.at }

func (h curatorMutexHeld) Lost() <-chan struct{} { return nil }

// FencingToken reads the czxid of the head of the queue, which is the
// peer's node while the peer holds the lock.
func (h curatorMutexHeld) FencingToken(ctx context.Context) (int64, error) {
	return headToken(ctx, h.c.Observer, h.c.Path, zkpath.LockName)
}

func (h curatorMutexHeld) Node() string { return "" }

func (h curatorMutexHeld) Release(ctx context.Context) error {
	_, err := h.ReleaseAt(ctx)
	return err
}

func (h curatorMutexHeld) ReleaseAt(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), curatorAnswer)
	defer cancel()
	return h.c.Peer.MutexReleaseAt(ctx, h.c.Handle)
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
	var names []string
	var at int64
	err := askPeer(ctx, func(ctx context.Context) (ok bool, err error) {
		names, ok, at, err = c.Peer.SemAcquireAt(ctx, c.Handle, c.Path, c.Max, 1, curatorAttempt)
		return ok, err
	})
	if err != nil {
		return nil, fmt.Errorf("curator semaphore %s: %w", c.Path, err)
	}
	node := ""
	if len(names) == 1 {
		node = zkpath.Join(c.Path, "leases", names[0])
	}
	return curatorLeaseHeld{c: c, node: node, at: at}, nil
}

type curatorLeaseHeld struct {
	c    CuratorSemaphore
	node string
	at   int64 // when the peer's acquire returned
}

func (h curatorLeaseHeld) AcquiredAt() int64 { return h.at }

func (h curatorLeaseHeld) Lost() <-chan struct{} { return nil }

func (h curatorLeaseHeld) FencingToken(context.Context) (int64, error) { return 0, nil }

func (h curatorLeaseHeld) Node() string { return h.node }

func (h curatorLeaseHeld) Release(ctx context.Context) error {
	_, err := h.ReleaseAt(ctx)
	return err
}

func (h curatorLeaseHeld) ReleaseAt(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), curatorAnswer)
	defer cancel()
	return h.c.Peer.SemReleaseAt(ctx, h.c.Handle)
}

// CuratorRWLock is a Locker on the write lock (Write) or the read lock of
// Curator's InterProcessReadWriteLock at Path, through one handle of the
// peer. Its holds are never signalled lost; a write hold's fencing token
// is the czxid of the head of the queue, read through Observer, and a read
// hold has none.
type CuratorRWLock struct {
	Peer     CuratorPeer
	Handle   string
	Path     string
	Write    bool
	Observer *framework.Client
}

// Exclusive returns Write.
func (c CuratorRWLock) Exclusive() bool { return c.Write }

// Acquire asks the peer for the lock until it holds it or ctx ends.
func (c CuratorRWLock) Acquire(ctx context.Context) (Held, error) {
	var at int64
	err := askPeer(ctx, func(ctx context.Context) (ok bool, err error) {
		ok, at, err = c.Peer.RWAcquireAt(ctx, c.Handle, c.Path, c.Write, curatorAttempt)
		return ok, err
	})
	if err != nil {
		return nil, fmt.Errorf("curator rwlock %s: %w", c.Path, err)
	}
	return curatorRWHeld{c: c, at: at}, nil
}

type curatorRWHeld struct {
	c  CuratorRWLock
	at int64 // when the peer's acquire returned
}

func (h curatorRWHeld) AcquiredAt() int64 { return h.at }

func (h curatorRWHeld) Lost() <-chan struct{} { return nil }

// FencingToken reads the czxid of the head of the queue for a write hold,
// the peer's node while the peer holds the write lock; 0 for a read hold.
func (h curatorRWHeld) FencingToken(ctx context.Context) (int64, error) {
	if !h.c.Write {
		return 0, nil
	}
	return headToken(ctx, h.c.Observer, h.c.Path, zkpath.ReadLockName, zkpath.WriteLockName)
}

func (h curatorRWHeld) Node() string { return "" }

func (h curatorRWHeld) Release(ctx context.Context) error {
	_, err := h.ReleaseAt(ctx)
	return err
}

func (h curatorRWHeld) ReleaseAt(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), curatorAnswer)
	defer cancel()
	return h.c.Peer.RWReleaseAt(ctx, h.c.Handle, h.c.Write)
}
