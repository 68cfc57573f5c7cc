package chaos

import (
	"context"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// Mutex is the Recipe of recipes/mutex.
type Mutex struct {
	// Policy is the holds' error policy; the zero value is the standard one.
	Policy framework.ErrorPolicy
}

// Name returns "mutex".
func (Mutex) Name() string { return "mutex" }

// Limit returns 1: a mutex is exclusive.
func (Mutex) Limit() int { return 1 }

// New returns a Locker on a mutex.Mutex of its own.
func (r Mutex) New(client *framework.Client, _ int, path string) (Locker, error) {
	m, err := mutex.New(client, path, mutex.WithErrorPolicy(r.Policy))
	if err != nil {
		return nil, err
	}
	return mutexLocker{m}, nil
}

type mutexLocker struct{ m *mutex.Mutex }

func (l mutexLocker) Exclusive() bool { return true }

func (l mutexLocker) Acquire(ctx context.Context) (Held, error) {
	h, err := l.m.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return mutexHeld{h}, nil
}

type mutexHeld struct{ h *mutex.Hold }

func (h mutexHeld) Lost() <-chan struct{} { return h.h.Lost() }

func (h mutexHeld) FencingToken(ctx context.Context) (int64, error) { return h.h.FencingToken(ctx) }

func (h mutexHeld) Node() string { return h.h.Node() }

func (h mutexHeld) Release(ctx context.Context) error { return h.h.Release(ctx) }
