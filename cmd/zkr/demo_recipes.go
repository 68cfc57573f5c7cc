package main

import (
	"context"
	"fmt"

	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// mutexRecipe is the demo's mutex at /mutex: one holder at a time, each
// with a fencing token.
func mutexRecipe(cfg demoConfig) demoRecipe {
	return demoRecipe{
		name: "mutex", limit: 1, work: cfg.work, dirs: []string{"/mutex"},
		acquirer: func(w *demoWorker) (func(context.Context) (demoHold, error), error) {
			m, err := mutex.New(w.client, "/mutex", mutex.WithData(fmt.Appendf(nil, "demo worker %d", w.id)))
			if err != nil {
				return nil, err
			}
			return func(ctx context.Context) (demoHold, error) {
				h, err := m.Acquire(ctx)
				if err != nil {
					return demoHold{}, err
				}
				token, err := h.FencingToken(ctx)
				if err != nil {
					_ = h.Release(ctx)
					return demoHold{}, err
				}
				return demoHold{lost: h.Lost(), err: h.Err, token: token, release: h.Release}, nil
			}, nil
		},
	}
}

// semaphoreRecipe is the demo's semaphore at /semaphore, with cfg.leases
// leases.
func semaphoreRecipe(cfg demoConfig) demoRecipe {
	return demoRecipe{
		name: "semaphore", limit: cfg.leases, work: 3 * cfg.work,
		dirs: []string{"/semaphore/locks", "/semaphore/leases"},
		acquirer: func(w *demoWorker) (func(context.Context) (demoHold, error), error) {
			s, err := semaphore.New(w.client, "/semaphore", cfg.leases, semaphore.WithData(fmt.Appendf(nil, "demo worker %d", w.id)))
			if err != nil {
				return nil, err
			}
			return func(ctx context.Context) (demoHold, error) {
				l, err := s.Acquire(ctx)
				if err != nil {
					return demoHold{}, err
				}
				return demoHold{lost: l.Lost(), err: l.Err, release: l.Return}, nil
			}, nil
		},
	}
}
