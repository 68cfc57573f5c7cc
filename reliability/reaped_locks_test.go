package reliability_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/multilock"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// releaser is a hold, a lease or a multi-lock hold.
type releaser interface {
	Release(ctx context.Context) error
}

// takeAndGive returns a use that takes with acquire and gives back.
func takeAndGive[H releaser](acquire func(ctx context.Context) (H, error)) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		h, err := acquire(ctx)
		if err != nil {
			return err
		}
		return h.Release(ctx)
	}
}

// takeAndGiveAll returns a use that takes several leases and gives them back.
func takeAndGiveAll(acquire func(ctx context.Context) ([]*leases.Lease, error)) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		ls, err := acquire(ctx)
		if err != nil {
			return err
		}
		return leases.ReleaseAll(ctx, ls...)
	}
}

func lockReapCases() []reapCase {
	mutexCase := func(name string, acquire func(m *mutex.Mutex, ctx context.Context) (*mutex.Hold, error)) reapCase {
		return reapCase{"mutex/" + name, func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			m, err := mutex.New(c, path)
			require.NoError(t, err)
			return takeAndGive(func(ctx context.Context) (*mutex.Hold, error) { return acquire(m, ctx) })
		}}
	}
	rwCase := func(name string, lock func(rw *rwlock.ReadWriteLock) *rwlock.Lock) reapCase {
		return reapCase{"rwlock/" + name, func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			rw, err := rwlock.New(c, path)
			require.NoError(t, err)
			return takeAndGive(lock(rw).Acquire)
		}}
	}
	semCase := func(name string, acquire func(s *semaphore.Semaphore, ctx context.Context) ([]*leases.Lease, error), opts ...semaphore.Option) reapCase {
		return reapCase{"semaphore/" + name, func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			s, err := semaphore.New(c, path, 3, opts...)
			require.NoError(t, err)
			return takeAndGiveAll(func(ctx context.Context) ([]*leases.Lease, error) { return acquire(s, ctx) })
		}}
	}
	one := func(acquire func(ctx context.Context) (*leases.Lease, error), ctx context.Context) ([]*leases.Lease, error) {
		l, err := acquire(ctx)
		if err != nil {
			return nil, err
		}
		return []*leases.Lease{l}, nil
	}
	return []reapCase{
		mutexCase("Acquire", (*mutex.Mutex).Acquire),
		mutexCase("TryAcquire", (*mutex.Mutex).TryAcquire),
		mutexCase("AcquireTimeout", func(m *mutex.Mutex, ctx context.Context) (*mutex.Hold, error) {
			return m.AcquireTimeout(ctx, 5*time.Second)
		}),
		rwCase("read", (*rwlock.ReadWriteLock).ReadLock),
		rwCase("write", (*rwlock.ReadWriteLock).WriteLock),
		{"multilock/Acquire", func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			m, err := mutex.New(c, path+"/mutex")
			require.NoError(t, err)
			rw, err := rwlock.New(c, path+"/rw")
			require.NoError(t, err)
			sm, err := semaphore.NewMutex(c, path+"/semaphore-mutex")
			require.NoError(t, err)
			l, err := multilock.New(multilock.Mutex(m), multilock.Write(rw), multilock.SemaphoreMutex(sm))
			require.NoError(t, err)
			return takeAndGive(l.Acquire)
		}},
		semCase("Acquire", func(s *semaphore.Semaphore, ctx context.Context) ([]*leases.Lease, error) { return one(s.Acquire, ctx) }),
		semCase("AcquireN", func(s *semaphore.Semaphore, ctx context.Context) ([]*leases.Lease, error) { return s.AcquireN(ctx, 2) }),
		semCase("AcquireTimeout", func(s *semaphore.Semaphore, ctx context.Context) ([]*leases.Lease, error) {
			return one(func(ctx context.Context) (*leases.Lease, error) { return s.AcquireTimeout(ctx, 5*time.Second) }, ctx)
		}),
		semCase("TryAcquireN", func(s *semaphore.Semaphore, ctx context.Context) ([]*leases.Lease, error) {
			return s.TryAcquireN(ctx, 2)
		}),
		semCase("Acquire with TTL leases", func(s *semaphore.Semaphore, ctx context.Context) ([]*leases.Lease, error) {
			return one(s.Acquire, ctx)
		}, semaphore.WithTTL(10*time.Second)),
		semCase("Acquire with a maximum hold", func(s *semaphore.Semaphore, ctx context.Context) ([]*leases.Lease, error) {
			return one(s.Acquire, ctx)
		}, semaphore.WithMaxHold(10*time.Second)),
		{"semaphore/Mutex.Acquire", func(t *testing.T, c *framework.Client, path string) func(context.Context) error {
			m, err := semaphore.NewMutex(c, path)
			require.NoError(t, err)
			return takeAndGive(m.Acquire)
		}},
	}
}
