package semaphore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
)

// Mutex is a lock made of a semaphore with one lease at its path,
// compatible with Curator's InterProcessSemaphoreMutex. Unlike mutex.Mutex
// it is not reentrant: a second Acquire, from any goroutine, waits for the
// Release. Any goroutine may release it. It is safe for concurrent use.
type Mutex struct {
	sem *Semaphore

	mu    sync.Mutex // guards lease
	lease *leases.Lease
}

// NewMutex returns a semaphore mutex on path. It checks its arguments and
// does no I/O.
func NewMutex(client *framework.Client, path string, opts ...Option) (*Mutex, error) {
	sem, err := New(client, path, 1, opts...)
	if err != nil {
		return nil, err
	}
	return &Mutex{sem: sem}, nil
}

// Acquire blocks until it holds the lock, and returns its lease, whose Lost
// channel signals a loss. If ctx ends first, the error wraps the context's
// error and nothing is left behind.
func (m *Mutex) Acquire(ctx context.Context) (*leases.Lease, error) {
	l, err := m.sem.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	m.hold(ctx, l)
	return l, nil
}

// TryAcquire makes one attempt, as Semaphore.TryAcquire: it returns the
// lease if the lock is free, and ErrNotAcquired if someone else holds it,
// leaving nothing behind.
func (m *Mutex) TryAcquire(ctx context.Context) (*leases.Lease, error) {
	return m.AcquireTimeout(ctx, 0)
}

// AcquireTimeout is Acquire bounded by timeout, as
// Semaphore.AcquireTimeout: ErrNotAcquired when the lock was seen held,
// ErrUnreachable when the server could not be reached, nothing left behind
// either way, and one attempt for a zero or negative timeout.
func (m *Mutex) AcquireTimeout(ctx context.Context, timeout time.Duration) (*leases.Lease, error) {
	l, err := m.sem.AcquireTimeout(ctx, timeout)
	if err != nil {
		return nil, err
	}
	m.hold(ctx, l)
	return l, nil
}

// hold records l as the lock's lease. A lease still recorded is one that
// was lost without a release (the lock could not be acquired otherwise):
// releasing it only records that, without a request.
func (m *Mutex) hold(ctx context.Context, l *leases.Lease) {
	m.mu.Lock()
	old := m.lease
	m.lease = l
	m.mu.Unlock()
	if old != nil {
		_ = old.Release(ctx)
	}
}

// Release gives back the lease, whichever goroutine acquired it. It returns
// ErrNotOwner if the lock is not held through this Mutex, and an error
// wrapping ErrLost if the lease was lost meanwhile. As Lease.Release, it
// works with a ctx that has ended.
func (m *Mutex) Release(ctx context.Context) error {
	m.mu.Lock()
	l := m.lease
	m.lease = nil
	m.mu.Unlock()
	if l == nil {
		return fmt.Errorf("%w: semaphore mutex %s is not held", ErrNotOwner, m.sem.path)
	}
	return l.Release(ctx)
}

// IsAcquiredInThisProcess reports whether the lock is held through this
// Mutex.
func (m *Mutex) IsAcquiredInThisProcess() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lease != nil
}

// Path returns the lock's path.
func (m *Mutex) Path() string { return m.sem.path }
