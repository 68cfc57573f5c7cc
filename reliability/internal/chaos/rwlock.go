package chaos

import (
	"context"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
)

// RWLock is the Recipe of recipes/rwlock: even clients take the write
// lock, odd clients the read lock. Readers share freely (Limit 0); the
// Ledger checks that no write hold overlaps any other hold, and the
// fencing order of the write holds.
type RWLock struct {
	// Policy is the holds' error policy; the zero value is the standard one.
	Policy framework.ErrorPolicy
}

// Name returns "rwlock".
func (RWLock) Name() string { return "rwlock" }

// Limit returns 0: readers are not limited.
func (RWLock) Limit() int { return 0 }

// New returns a Locker on the write lock for even i, the read lock for odd
// i, of a read/write lock of its own on path.
func (r RWLock) New(client *framework.Client, i int, path string) (Locker, error) {
	rw, err := rwlock.New(client, path, rwlock.WithErrorPolicy(r.Policy))
	if err != nil {
		return nil, err
	}
	if i%2 == 0 {
		return rwLocker{lock: rw.WriteLock(), exclusive: true}, nil
	}
	return rwLocker{lock: rw.ReadLock()}, nil
}

type rwLocker struct {
	lock      *rwlock.Lock
	exclusive bool
}

func (l rwLocker) Exclusive() bool { return l.exclusive }

func (l rwLocker) Acquire(ctx context.Context) (Held, error) {
	h, err := l.lock.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return mutexHeld{h}, nil // a read/write lock's holds are mutex holds
}
