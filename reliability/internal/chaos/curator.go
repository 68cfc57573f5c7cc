package chaos

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

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
	LockNode(ctx context.Context, handle, kind string) (node string, session int64, err error)
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
// one handle of the peer; its holds are PeerHeld and Vetted. Its holds are
// never signalled lost (Curator's mutex has no such signal).
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
	return curatorMutexHeld{c: c, peerHold: peerHold{at: at, release: func(ctx context.Context) (int64, error) {
		return c.Peer.MutexReleaseAt(ctx, c.Handle)
	}}}, nil
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

// VetPeerHold asks the peer which node handle's lock of kind is held with
// and in which session the peer is, and reads that node through observer
// after a sync: its czxid is the hold's fencing token. A node that is gone,
// or is an ephemeral of another session, makes the hold stale: Curator 5.4
// holds on with it while the server deletes it (at the old session's
// expiry) and lets the next waiter in, and never tells its holder.
func VetPeerHold(ctx context.Context, peer CuratorPeer, observer *framework.Client, handle, kind string) (Vetting, error) {
	node, session, err := peer.LockNode(ctx, handle, kind)
	if err != nil {
		return Vetting{}, err
	}
	if node == "" {
		return Vetting{}, fmt.Errorf("curator %s %s: held without a node", kind, handle)
	}
	return vetNode(ctx, observer, node, session, "CURATOR-604")
}

// vetNode reads node through observer after a sync: its czxid is the
// hold's token, and a node that is gone, or an ephemeral of a session
// other than session (the peer's live one), makes the hold stale; bug
// names the Curator defect that lets such a hold be.
func vetNode(ctx context.Context, observer *framework.Client, node string, session int64, bug string) (Vetting, error) {
	// The observer's server syncs with the leader first: a follower behind
	// it may not have the node's deletion yet.
	if err := observer.Sync(ctx, node); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return Vetting{Node: node}, err
	}
	ok, stat, err := observer.Exists(ctx, node)
	switch {
	case err != nil:
		return Vetting{Node: node}, err
	case !ok:
		return Vetting{Node: node, Stale: fmt.Sprintf(
			"held after its node was deleted: Curator 5.4 never signals the loss (CURATOR-206, %s)", bug)}, nil
	case stat.EphemeralOwner != session:
		return Vetting{Node: node, Token: stat.Czxid, Stale: fmt.Sprintf(
			"held with a node of session %#x, not of its live session %#x: Curator 5.4 took or kept a node of a session it had left (%s)",
			stat.EphemeralOwner, session, bug)}, nil
	}
	return Vetting{Node: node, Token: stat.Czxid}, nil
}

// peerHold is what every hold of the Curator peer shares: the instant
// the peer's acquire returned, no loss signal (the peer relays none), no
// node of its own to report, and a release that waits curatorAnswer for
// the peer whatever the caller's ctx, so that no hold is left unrecorded.
type peerHold struct {
	at      int64 // when the peer's acquire returned
	release func(context.Context) (called int64, err error)
}

func (h peerHold) AcquiredAt() int64 { return h.at }

func (h peerHold) Lost() <-chan struct{} { return nil }

func (h peerHold) Node() string { return "" }

func (h peerHold) Release(ctx context.Context) error {
	_, err := h.ReleaseAt(ctx)
	return err
}

func (h peerHold) ReleaseAt(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), curatorAnswer)
	defer cancel()
	return h.release(ctx)
}

type curatorMutexHeld struct {
	peerHold
	c CuratorMutex
}

// FencingToken reads the czxid of the peer's node (see Vet).
func (h curatorMutexHeld) FencingToken(ctx context.Context) (int64, error) {
	v, err := h.Vet(ctx)
	return v.Token, err
}

// Vet reads the peer's node and session: see VetPeerHold.
func (h curatorMutexHeld) Vet(ctx context.Context) (Vetting, error) {
	return VetPeerHold(ctx, h.c.Peer, h.c.Observer, h.c.Handle, "mutex")
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
	return curatorLeaseHeld{node: node, peerHold: peerHold{at: at, release: func(ctx context.Context) (int64, error) {
		return c.Peer.SemReleaseAt(ctx, c.Handle)
	}}}, nil
}

type curatorLeaseHeld struct {
	peerHold
	node string
}

func (h curatorLeaseHeld) FencingToken(context.Context) (int64, error) { return 0, nil }

func (h curatorLeaseHeld) Node() string { return h.node }

// CuratorRWLock is a Locker on the write lock (Write) or the read lock of
// Curator's InterProcessReadWriteLock at Path, through one handle of the
// peer. Its holds are never signalled lost; they are PeerHeld and Vetted
// (a read hold's token is its node's czxid too, but the ledger checks the
// tokens of exclusive holds only).
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
	return curatorRWHeld{c: c, peerHold: peerHold{at: at, release: func(ctx context.Context) (int64, error) {
		return c.Peer.RWReleaseAt(ctx, c.Handle, c.Write)
	}}}, nil
}

type curatorRWHeld struct {
	peerHold
	c CuratorRWLock
}

// FencingToken reads the czxid of the peer's node (see Vet).
func (h curatorRWHeld) FencingToken(ctx context.Context) (int64, error) {
	v, err := h.Vet(ctx)
	return v.Token, err
}

// Vet reads the peer's node and session: see VetPeerHold.
func (h curatorRWHeld) Vet(ctx context.Context) (Vetting, error) {
	return VetPeerHold(ctx, h.c.Peer, h.c.Observer, h.c.Handle, curatorKind(h.c.Write))
}

func curatorKind(write bool) string {
	if write {
		return "write"
	}
	return "read"
}
