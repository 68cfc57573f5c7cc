package chaos

import (
	"context"
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
)

// The edges of the recipes that the plain adapters never reach, each a
// Locker recorded under the recipe it contends on: a writer that
// downgrades, an explicit owner that acquires in one goroutine and
// releases in another, and several semaphore leases acquired at once
// (leasesn.go).

// Downgrade is a Locker on the write lock of its own read/write lock at a
// path, whose holds the worker downgrades (see Downgrader): it contends
// with the writers and readers of RWLock on the same path. By default the
// worker's goroutine owns the holds, and downgrades in order: the read
// lock, then the write lock's release. With an explicit owner, the read
// acquire and the write release run at once, in two goroutines of the
// owner: whichever the recipe lets go first, nobody else may hold the
// write lock while the read lock is held at the writer's place.
type Downgrade struct {
	rw    *rwlock.ReadWriteLock
	owner *owner // nil: the calling goroutine
}

// NewDowngrade returns a Downgrade on the read/write lock at path; a
// non-empty owner names the explicit owner of its holds.
func NewDowngrade(client *framework.Client, path, ownerName string) (*Downgrade, error) {
	rw, err := rwlock.New(client, path)
	if err != nil {
		return nil, err
	}
	d := &Downgrade{rw: rw}
	if ownerName != "" {
		d.owner = &owner{name: ownerName}
	}
	return d, nil
}

// Exclusive returns true: the write hold excludes all.
func (d *Downgrade) Exclusive() bool { return true }

// as returns ctx acting for the explicit owner, if any.
func (d *Downgrade) as(ctx context.Context) context.Context {
	if d.owner == nil {
		return ctx
	}
	return rwlock.ContextWithOwner(ctx, d.owner)
}

// Acquire takes the write lock for the owner.
func (d *Downgrade) Acquire(ctx context.Context) (Held, error) {
	h, err := d.rw.WriteLock().Acquire(d.as(ctx))
	if err != nil {
		return nil, err
	}
	return downgradeHeld{mutexHeld: mutexHeld{h}, d: d}, nil
}

type downgradeHeld struct {
	mutexHeld
	d *Downgrade
}

// Release releases the write lock for the owner.
func (h downgradeHeld) Release(ctx context.Context) error {
	return h.d.rw.WriteLock().Release(h.d.as(ctx))
}

// Downgrade takes the read lock while the write lock is held, then
// releases the write lock; an explicit owner does both at once.
func (h downgradeHeld) Downgrade(ctx context.Context) (Held, error) {
	if h.d.owner != nil {
		return h.concurrently(ctx)
	}
	read, err := h.d.rw.ReadLock().Acquire(ctx)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("downgrade: %w", err), h.Release(ctx))
	}
	if err := h.Release(ctx); err != nil {
		return mutexHeld{read}, fmt.Errorf("downgrade: release the write lock: %w", err)
	}
	return mutexHeld{read}, nil
}

// concurrently runs the read acquire and the write release at once, each
// in a goroutine of the explicit owner.
func (h downgradeHeld) concurrently(ctx context.Context) (Held, error) {
	released := make(chan error, 1)
	// Ends when the release returns, which ctx bounds.
	go func() { released <- h.Release(ctx) }()
	read, err := h.d.rw.ReadLock().Acquire(h.d.as(ctx))
	relErr := <-released
	if err != nil {
		return nil, errors.Join(fmt.Errorf("downgrade: %w", err), relErr)
	}
	held := ownedReadHeld{mutexHeld: mutexHeld{read}, d: h.d}
	if relErr != nil {
		return held, fmt.Errorf("downgrade: release the write lock: %w", relErr)
	}
	return held, nil
}

// ownedReadHeld is a read hold of an explicit owner.
type ownedReadHeld struct {
	mutexHeld
	d *Downgrade
}

func (h ownedReadHeld) Release(ctx context.Context) error {
	return h.d.rw.ReadLock().Release(h.d.as(ctx))
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
		h, err := o.m.Acquire(mutex.ContextWithOwner(ctx, o.owner))
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
	go func() { done <- h.o.m.Release(mutex.ContextWithOwner(ctx, h.o.owner)) }()
	return <-done
}
