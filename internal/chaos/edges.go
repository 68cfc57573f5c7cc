package chaos

import (
	"context"
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// The edges of the recipes that the plain adapters never reach, each a
// Locker recorded under the recipe it contends on: a writer that
// downgrades, an explicit owner that acquires in one goroutine and
// releases in another, and several semaphore leases acquired at once.

// Downgrade is a Locker on the write lock of its own read/write lock at a
// path, whose holds the worker downgrades (see Downgrader): it contends
// with the writers and readers of RWLock on the same path.
type Downgrade struct{ rw *rwlock.ReadWriteLock }

// NewDowngrade returns a Downgrade on the read/write lock at path.
func NewDowngrade(client *framework.Client, path string) (*Downgrade, error) {
	rw, err := rwlock.New(client, path)
	if err != nil {
		return nil, err
	}
	return &Downgrade{rw: rw}, nil
}

// Exclusive returns true: the write hold excludes all.
func (d *Downgrade) Exclusive() bool { return true }

// Acquire takes the write lock for the calling goroutine, the worker's.
func (d *Downgrade) Acquire(ctx context.Context) (Held, error) {
	h, err := d.rw.WriteLock().Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return downgradeHeld{mutexHeld: mutexHeld{h}, rw: d.rw}, nil
}

type downgradeHeld struct {
	mutexHeld
	rw *rwlock.ReadWriteLock
}

// Downgrade takes the read lock while the write lock is held, then
// releases the write lock; on the worker's goroutine, the owner of both.
func (h downgradeHeld) Downgrade(ctx context.Context) (Held, error) {
	read, err := h.rw.ReadLock().Acquire(ctx)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("downgrade: %w", err), h.Release(ctx))
	}
	if err := h.Release(ctx); err != nil {
		return mutexHeld{read}, fmt.Errorf("downgrade: release the write lock: %w", err)
	}
	return mutexHeld{read}, nil
}

// OwnedMutex is a Locker on a mutex.Mutex of its own at a path whose holds
// belong to an explicit owner: each acquire runs in a goroutine of its own
// and each release in another, neither of them the worker's.
type OwnedMutex struct {
	m     *mutex.Mutex
	owner *owner
}

// owner is an explicit owner: a pointer to a struct with a field, equal
// only to itself.
type owner struct{ name string }

// NewOwnedMutex returns an OwnedMutex on the mutex at path, for the owner
// named name.
func NewOwnedMutex(client *framework.Client, path, name string) (*OwnedMutex, error) {
	m, err := mutex.New(client, path)
	if err != nil {
		return nil, err
	}
	return &OwnedMutex{m: m, owner: &owner{name: name}}, nil
}

// Exclusive returns true.
func (o *OwnedMutex) Exclusive() bool { return true }

// Acquire acquires for the owner, in a goroutine of its own.
func (o *OwnedMutex) Acquire(ctx context.Context) (Held, error) {
	type result struct {
		h   *mutex.Hold
		err error
	}
	got := make(chan result, 1)
	// Ends when the acquire returns, which ctx bounds.
	go func() {
		h, err := o.m.Acquire(mutex.WithOwner(ctx, o.owner))
		got <- result{h, err}
	}()
	r := <-got
	if r.err != nil {
		return nil, r.err
	}
	return ownedHeld{mutexHeld: mutexHeld{r.h}, o: o}, nil
}

type ownedHeld struct {
	mutexHeld
	o *OwnedMutex
}

// Release releases for the owner, in another goroutine of its own.
func (h ownedHeld) Release(ctx context.Context) error {
	done := make(chan error, 1)
	// Ends when the release returns, which ctx bounds.
	go func() { done <- h.o.m.Release(mutex.WithOwner(ctx, h.o.owner)) }()
	return <-done
}

// SemaphoreN is a Locker on a semaphore.Semaphore of its own that acquires
// N leases at once (one transaction), recorded as one hold of N leases.
type SemaphoreN struct {
	s *semaphore.Semaphore
	n int
}

// NewSemaphoreN returns a SemaphoreN on the semaphore at path with max
// leases.
func NewSemaphoreN(client *framework.Client, path string, maxLeases, n int) (*SemaphoreN, error) {
	s, err := semaphore.New(client, path, maxLeases)
	if err != nil {
		return nil, err
	}
	return &SemaphoreN{s: s, n: n}, nil
}

// Exclusive returns false.
func (l *SemaphoreN) Exclusive() bool { return false }

// Acquire acquires N leases, all or none.
func (l *SemaphoreN) Acquire(ctx context.Context) (Held, error) {
	ls, err := l.s.AcquireN(ctx, l.n)
	if err != nil {
		return nil, err
	}
	h := &leasesHeld{s: l.s, ls: ls, lost: make(chan struct{}), done: make(chan struct{})}
	// Ends when a lease is lost or the leases are returned.
	go func() {
		defer close(h.lost)
		cases := make([]<-chan struct{}, 0, len(ls))
		for _, lease := range ls {
			cases = append(cases, lease.Lost())
		}
		waitAny(cases, h.done)
	}()
	return h, nil
}

// leasesHeld is several leases held at once: lost when any is.
type leasesHeld struct {
	s    *semaphore.Semaphore
	ls   []*leases.Lease
	lost chan struct{} // closed when a lease is lost, or after Release
	done chan struct{} // closed by Release
}

func (h *leasesHeld) Lost() <-chan struct{} { return h.lost }

// FencingToken returns 0: leases carry no fencing token here.
func (h *leasesHeld) FencingToken(context.Context) (int64, error) { return 0, nil }

func (h *leasesHeld) Node() string { return h.ls[0].Path() }

// Leases returns how many leases the hold takes.
func (h *leasesHeld) Leases() int { return len(h.ls) }

func (h *leasesHeld) Release(ctx context.Context) error {
	close(h.done)
	return h.s.Return(ctx, h.ls...)
}

// waitAny returns when one of chs, or done, is closed.
func waitAny(chs []<-chan struct{}, done <-chan struct{}) {
	merged := make(chan struct{})
	stop := make(chan struct{})
	defer close(stop)
	for _, ch := range chs {
		// Ends when ch closes or waitAny returns.
		go func() {
			select {
			case <-ch:
				select {
				case merged <- struct{}{}:
				case <-stop:
				}
			case <-stop:
			}
		}()
	}
	select {
	case <-merged:
	case <-done:
	}
}
