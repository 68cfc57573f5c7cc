package chaos

import (
	"context"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

// Semaphore is the Recipe of recipes/semaphore with Max leases.
type Semaphore struct {
	// Max is the semaphore's maximum number of leases.
	Max int
}

// Name returns "semaphore".
func (Semaphore) Name() string { return "semaphore" }

// Limit returns the maximum number of leases.
func (s Semaphore) Limit() int { return s.Max }

// New returns a Locker on a semaphore.Semaphore of its own that acquires
// one lease at a time.
func (s Semaphore) New(client *framework.Client, _ int, path string) (Locker, error) {
	sem, err := semaphore.New(client, path, s.Max)
	if err != nil {
		return nil, err
	}
	return semaphoreLocker{sem}, nil
}

type semaphoreLocker struct{ s *semaphore.Semaphore }

func (l semaphoreLocker) Exclusive() bool { return false }

func (l semaphoreLocker) Acquire(ctx context.Context) (Held, error) {
	lease, err := l.s.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return leaseHeld{lease}, nil
}

type leaseHeld struct{ l *leases.Lease }

func (h leaseHeld) Lost() <-chan struct{} { return h.l.Lost() }

// FencingToken returns 0: leases carry no fencing token.
func (h leaseHeld) FencingToken(context.Context) (int64, error) { return 0, nil }

func (h leaseHeld) Node() string { return h.l.Node() }

func (h leaseHeld) Release(ctx context.Context) error { return h.l.Release(ctx) }

// CountedSemaphore is the Recipe of recipes/semaphore whose maximum is read
// from a shared count (recipes/sharedcount) at CountPath, seeded with Max
// and left unchanged, so that the shared count's watch and cache take the
// faults too. With MaxHold its leases are time-bounded (recipes/leases):
// a hold longer than MaxHold is lost, and its lease given to another.
type CountedSemaphore struct {
	Max       int
	CountPath string
	MaxHold   time.Duration // 0 for leases without a time bound
}

// Name returns "counted-semaphore".
func (CountedSemaphore) Name() string { return "counted-semaphore" }

// Limit returns the maximum number of leases.
func (s CountedSemaphore) Limit() int { return s.Max }

// New returns a Locker on a counted semaphore.Semaphore of its own.
func (s CountedSemaphore) New(client *framework.Client, _ int, path string) (Locker, error) {
	count, err := sharedcount.New(client, s.CountPath, int32(s.Max))
	if err != nil {
		return nil, err
	}
	var opts []semaphore.Option
	if s.MaxHold > 0 {
		opts = append(opts, semaphore.WithMaxHold(s.MaxHold))
	}
	sem, err := semaphore.NewCounted(client, path, count, opts...)
	if err != nil {
		return nil, err
	}
	return semaphoreLocker{sem}, nil
}
