package main

import (
	"context"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// demoRecipe is one recipe the demo runs.
type demoRecipe struct {
	name  string
	intro string      // what the scenario shows, after its name
	kinds []*demoKind // the kinds of hold it hands out: one summary row each
	// admits says whether the rule of the recipe allows a hold of kind
	// while the holds in holding are under way.
	admits func(kind *demoKind, holding map[int]holder) bool
	// fences says whether a hold of kind must have a greater fencing token
	// than every hold of kind ended that ended before it was handed out.
	fences func(kind, ended *demoKind) bool
	// acquirer returns worker w's acquire function.
	acquirer func(w *demoWorker) (demoAcquire, error)
}

// demoKind is one kind of hold: a mutex hold, a lease, a read or a write
// lock.
type demoKind struct {
	name   string // its summary row
	short  string // in the progress line
	noun   string // in the story: "the mutex", "a semaphore lease"
	limit  int    // most holds of this kind at once
	work   time.Duration
	dirs   []string // where its nodes live, to count what is left
	marker string   // only nodes whose name holds it count; "" for all
}

// demoAcquire acquires a hold for a worker's round n (from 0).
type demoAcquire func(ctx context.Context, n int) (demoHold, error)

// demoHold is a hold as a worker sees it, whatever the recipe.
type demoHold struct {
	kind    *demoKind
	lost    <-chan struct{}
	err     func() error
	token   int64 // fencing token
	release func(ctx context.Context) error
}

// limited is the rule of a mutex and a semaphore: fewer holds than the
// limit under way.
func limited(kind *demoKind, holding map[int]holder) bool { return len(holding) < kind.limit }

// ordered is the fencing rule of a mutex and a semaphore: every hold comes
// after those that ended before it.
func ordered(_, _ *demoKind) bool { return true }

// mutexRecipe is the demo's mutex at /mutex: one holder at a time.
func mutexRecipe(cfg demoConfig) demoRecipe {
	kind := &demoKind{name: "mutex", noun: "the mutex", limit: 1, work: cfg.work, dirs: []string{"/mutex"}}
	return demoRecipe{
		name: "mutex", intro: "at most 1 holder at once", kinds: []*demoKind{kind}, admits: limited, fences: ordered,
		acquirer: func(w *demoWorker) (demoAcquire, error) {
			m, err := mutex.New(w.client, "/mutex", mutex.WithData(workerData(w)))
			if err != nil {
				return nil, err
			}
			return func(ctx context.Context, _ int) (demoHold, error) {
				h, err := m.Acquire(ctx)
				if err != nil {
					return demoHold{}, err
				}
				return holdOf(ctx, kind, h)
			}, nil
		},
	}
}

// semaphoreRecipe is the demo's semaphore at /semaphore, with cfg.leases
// leases.
func semaphoreRecipe(cfg demoConfig) demoRecipe {
	kind := &demoKind{
		name: "semaphore", noun: "a semaphore lease", limit: cfg.leases, work: 3 * cfg.work,
		dirs: []string{"/semaphore/locks", "/semaphore/leases"},
	}
	return demoRecipe{
		name: "semaphore", intro: fmt.Sprintf("at most %d holders at once", cfg.leases),
		kinds: []*demoKind{kind}, admits: limited, fences: ordered,
		acquirer: func(w *demoWorker) (demoAcquire, error) {
			s, err := semaphore.New(w.client, "/semaphore", cfg.leases, semaphore.WithData(workerData(w)))
			if err != nil {
				return nil, err
			}
			return func(ctx context.Context, _ int) (demoHold, error) {
				l, err := s.Acquire(ctx)
				if err != nil {
					return demoHold{}, err
				}
				token, err := l.FencingToken(ctx)
				if err != nil {
					_ = l.Release(ctx)
					return demoHold{}, err
				}
				return demoHold{kind: kind, lost: l.Lost(), err: l.Err, token: token, release: l.Release}, nil
			}, nil
		},
	}
}

// writeEvery makes every writeEvery-th round of a worker a write in the
// read/write lock's scenario (staggered between workers).
const writeEvery = 4

// rwlockRecipe is the demo's read/write lock at /rwlock: readers share it,
// a writer holds it alone, in strict order of arrival.
func rwlockRecipe(cfg demoConfig) demoRecipe {
	read := &demoKind{
		name: "rwlock/read", short: "readers", noun: "the read lock", limit: cfg.workers, work: 2 * cfg.work,
		dirs: []string{"/rwlock"}, marker: "__READ__",
	}
	write := &demoKind{
		name: "rwlock/write", short: "writers", noun: "the write lock", limit: 1, work: cfg.work,
		dirs: []string{"/rwlock"}, marker: "__WRIT__",
	}
	return demoRecipe{
		name:  "rwlock",
		intro: fmt.Sprintf("readers share, a writer holds alone; one acquisition in %d writes", writeEvery),
		kinds: []*demoKind{read, write},
		admits: func(kind *demoKind, holding map[int]holder) bool {
			for _, h := range holding {
				if kind == write || h.kind == write {
					return false
				}
			}
			return true
		},
		// Readers share, so only a writer orders the holds around it.
		fences: func(kind, ended *demoKind) bool { return kind == write || ended == write },
		acquirer: func(w *demoWorker) (demoAcquire, error) {
			rw, err := rwlock.New(w.client, "/rwlock", rwlock.WithData(workerData(w)))
			if err != nil {
				return nil, err
			}
			return func(ctx context.Context, n int) (demoHold, error) {
				kind, lock := read, rw.ReadLock()
				if (w.id+n)%writeEvery == 0 {
					kind, lock = write, rw.WriteLock()
				}
				h, err := lock.Acquire(ctx)
				if err != nil {
					return demoHold{}, err
				}
				return holdOf(ctx, kind, h)
			}, nil
		},
	}
}

// holdOf returns the demo's view of a lock hold, with its fencing token.
func holdOf(ctx context.Context, kind *demoKind, h *mutex.Hold) (demoHold, error) {
	token, err := h.FencingToken(ctx)
	if err != nil {
		_ = h.Release(ctx)
		return demoHold{}, err
	}
	return demoHold{kind: kind, lost: h.Lost(), err: h.Err, token: token, release: h.Release}, nil
}

// workerData is the data of worker w's nodes, for zkr inspect.
func workerData(w *demoWorker) []byte { return fmt.Appendf(nil, "demo worker %d", w.id) }
