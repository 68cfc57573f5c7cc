package chaos

import (
	"context"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Recipe is a lock recipe taking part in a chaos run.
type Recipe interface {
	// Name names the recipe in the report, e.g. "mutex".
	Name() string
	// Limit is how many non-exclusive holds may overlap: 1 for a mutex, the
	// maximum for a semaphore, 0 for no limit (the readers of a read/write
	// lock).
	Limit() int
	// New returns the Locker of the i-th client on path. Every client of
	// a run gets the same path.
	New(client *framework.Client, i int, path string) (Locker, error)
}

// Locker acquires one recipe's hold for one client.
type Locker interface {
	// Acquire blocks until it holds, or ctx ends, or it fails.
	Acquire(ctx context.Context) (Held, error)
	// Exclusive tells whether a hold of this Locker excludes every other
	// hold of the recipe (a mutex, a write lock), or only counts against
	// the recipe's Limit (a lease, a read lock).
	Exclusive() bool
}

// Held is one hold.
type Held interface {
	// Lost is closed when the hold is signalled lost; a nil channel means
	// the recipe never signals loss (the Curator peer's holds).
	Lost() <-chan struct{}
	// FencingToken returns the hold's fencing token, or 0 if the recipe
	// has none or it could not be read.
	FencingToken(ctx context.Context) (int64, error)
	// Node names the hold's node, for the report; it may be empty.
	Node() string
	// Release gives up the hold.
	Release(ctx context.Context) error
}

// PeerHeld is a Held of the Curator peer, whose instants the peer stamps
// itself on CLOCK_MONOTONIC (Clock.At reads them), so that the ledger
// records when the peer's acquire returned and when it began to release,
// not when the Go side heard of it: an overlap shorter than the round trip
// to the peer is not hidden.
type PeerHeld interface {
	Held
	// AcquiredAt is when the peer's acquire returned.
	AcquiredAt() int64
	// ReleaseAt releases the hold, and returns when the peer began to.
	ReleaseAt(ctx context.Context) (called int64, err error)
}

// LossStamped is a Held that stamps, on zktest.Monotonic, the instant its
// hold ended on a loss: a watcher of Lost would stamp it a scheduling
// delay later, after a successor may have begun.
type LossStamped interface {
	Held
	// LostAt is when the hold ended, once Lost is closed.
	LostAt() int64
}

// Vetted is a hold of the Curator peer that can say which node it is held
// with, and whether that node stood for the hold when the hold began.
type Vetted interface {
	Held
	// Vet reads the hold's node; the worker calls it as the hold begins.
	Vet(ctx context.Context) (Vetting, error)
}

// Vetting is what Vet found.
type Vetting struct {
	// Node is the hold's node.
	Node string
	// Token is the node's czxid, 0 when it is gone.
	Token int64
	// Stale says why the node did not stand for the hold (gone, or an
	// ephemeral of a session the holder had left); empty when it did.
	Stale string
}

// Downgrader is a write hold of a read/write lock that the worker
// downgrades instead of releasing: Downgrade takes the read lock of the
// same owner while the write lock is held, then releases the write lock,
// and returns the read hold (or nil and an error, the write lock
// released). The write hold is recorded as ending when the downgrade
// began, the read hold as beginning when Downgrade returned.
type Downgrader interface {
	Held
	Downgrade(ctx context.Context) (Held, error)
}
