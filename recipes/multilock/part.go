package multilock

import (
	"context"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// Part is one lock of a multi-lock, made by Mutex, Read, Write or
// SemaphoreMutex. The locks themselves cannot be parts as they are: their
// Acquire methods return different hold types (*mutex.Hold,
// *leases.Lease), and the read and write locks do not know their path.
type Part interface {
	// Path returns the lock's path.
	Path() string

	// acquire takes the lock: wait < 0 blocks, 0 makes one attempt, and a
	// positive wait bounds the wait as the lock's AcquireTimeout does.
	acquire(ctx context.Context, wait time.Duration) (PartHold, error)
	// release gives up one level of h, which acquire returned.
	release(ctx context.Context, h PartHold) error
	// valid reports whether the part was made from a lock, not from nil.
	valid() bool
}

// PartHold is a part's hold: a *mutex.Hold for a mutex or a read or write
// lock, a *leases.Lease for a semaphore mutex. Type-assert to reach the
// rest of its methods.
type PartHold interface {
	// Lost returns a channel closed when the hold ends without a release.
	Lost() <-chan struct{}
	// Err returns nil while the hold lasts, and why it ended after.
	Err() error
	// Node returns the path of the hold's node, relative to the client's
	// namespace.
	Node() string
	// FencingToken returns the hold's fencing token.
	FencingToken(ctx context.Context) (int64, error)
	// Guard returns the operation that fails a Client.Multi unless the
	// hold's node is still there as handed out.
	Guard() framework.Op
}

// locker is what the locks of this library offer, with H their hold type:
// *mutex.Mutex and *rwlock.Lock give a *mutex.Hold, *semaphore.Mutex a
// *leases.Lease.
type locker[H PartHold] interface {
	Acquire(ctx context.Context) (H, error)
	AcquireTimeout(ctx context.Context, timeout time.Duration) (H, error)
}

// part adapts a locker to Part.
type part[H PartHold] struct {
	path string
	lock locker[H]
	free func(h H, ctx context.Context) error // gives up one level of h: a method expression
}

// Mutex returns the part for m: reentrant per owner, as m is.
func Mutex(m *mutex.Mutex) Part {
	if m == nil {
		return part[*mutex.Hold]{}
	}
	return part[*mutex.Hold]{path: m.Path(), lock: m, free: (*mutex.Hold).Release}
}

// Read returns the part for the read lock of rw.
func Read(rw *rwlock.ReadWriteLock) Part {
	if rw == nil {
		return part[*mutex.Hold]{}
	}
	return part[*mutex.Hold]{path: rw.Path(), lock: rw.ReadLock(), free: (*mutex.Hold).Release}
}

// Write returns the part for the write lock of rw.
func Write(rw *rwlock.ReadWriteLock) Part {
	if rw == nil {
		return part[*mutex.Hold]{}
	}
	return part[*mutex.Hold]{path: rw.Path(), lock: rw.WriteLock(), free: (*mutex.Hold).Release}
}

// SemaphoreMutex returns the part for m. Like m, it is not reentrant: an
// owner that holds it and acquires it again waits for itself. Releasing
// the multi-lock returns the very lease this part acquired, never one that
// m handed out since, so m.IsAcquiredInThisProcess keeps reporting true
// until m's next acquire or release.
func SemaphoreMutex(m *semaphore.Mutex) Part {
	if m == nil {
		return part[*leases.Lease]{}
	}
	return part[*leases.Lease]{path: m.Path(), lock: m, free: (*leases.Lease).Release}
}

func (p part[H]) Path() string { return p.path }

func (p part[H]) valid() bool { return p.lock != nil }

func (p part[H]) acquire(ctx context.Context, wait time.Duration) (PartHold, error) {
	var h H
	var err error
	if wait < 0 {
		h, err = p.lock.Acquire(ctx)
	} else {
		h, err = p.lock.AcquireTimeout(ctx, wait)
	}
	if err != nil {
		return nil, err
	}
	return h, nil
}

func (p part[H]) release(ctx context.Context, h PartHold) error {
	return p.free(h.(H), ctx)
}
