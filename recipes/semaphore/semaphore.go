package semaphore

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/sharedcount"
)

// The children of a semaphore's path, as Curator names them.
const (
	locksDir  = "locks"
	leasesDir = "leases"
)

// guardWatchedQueue is the longest queue of acquirers on the guard that
// follows it through the locks directory's watch (mutex.WithWatchedQueue),
// twice the mutex's. An acquisition costs the guard's create and delete
// and the lease's transaction and delete, four requests, when the guard's
// waiters follow the directory watch, against eight on one-shot watches
// (the guard's listing, two watches, a second look); but the server tells
// every waiting client of the guard's create and delete, two
// notifications each, against about two in all. Measured with 16 clients
// and 3 leases, each its own session, on two shared cores: 4.1 requests
// and 31.8 notifications per acquisition against 8.0 and 2.0, the
// server's CPU per acquisition about a tenth above the one-shot path's.
// At 32 clients (64 notifications) the fan-out would cost more than the
// requests it saves, and the guard keeps to one-shot watches.
const guardWatchedQueue = 16

// Semaphore is a counting semaphore on one ZooKeeper path, compatible with
// Curator's InterProcessSemaphoreV2. It is safe for concurrent use; every
// acquire, from any goroutine, competes for its own leases.
type Semaphore struct {
	client *framework.Client
	path   string
	leases string // path/leases
	guard  *mutex.Mutex
	max    int                      // the fixed maximum; 0 when counted
	count  *sharedcount.SharedCount // the maximum, when counted
	opts   options

	// listToCount: the client may not write the leases directory, so the
	// lease transaction cannot count (see txn).
	listToCount atomic.Bool
}

// New returns a semaphore on path that lets at most maxLeases leases be
// held at once. It checks its arguments and does no I/O.
func New(client *framework.Client, path string, maxLeases int, opts ...Option) (*Semaphore, error) {
	if maxLeases < 1 {
		return nil, fmt.Errorf("semaphore: new %s: %w: maximum %d leases, want at least 1", path, ErrInvalidArgument, maxLeases)
	}
	return newSemaphore(client, path, maxLeases, nil, opts)
}

// NewCounted returns a semaphore on path whose maximum is the value of
// count, a shared count (Curator's SharedCount) that may change while the
// semaphore is in use: a change wakes the waiting acquirer, which judges
// again. A maximum of 0 lets nobody in; a negative count fails acquires
// with ErrInvalidMaximum. It checks its arguments and does no I/O.
func NewCounted(client *framework.Client, path string, count *sharedcount.SharedCount, opts ...Option) (*Semaphore, error) {
	if count == nil {
		return nil, fmt.Errorf("semaphore: new %s: %w: nil shared count", path, ErrInvalidArgument)
	}
	return newSemaphore(client, path, 0, count, opts)
}

func newSemaphore(client *framework.Client, path string, max int, count *sharedcount.SharedCount, opts []Option) (*Semaphore, error) {
	if err := recipe.CheckPath(client, path, ErrInvalidArgument); err != nil {
		return nil, err
	}
	o, err := recipe.Options(opts, ErrInvalidArgument)
	if err == nil {
		err = o.check()
	}
	if err != nil {
		return nil, err
	}
	// The guard only makes acquirers count one at a time: the count keeps
	// the leases within the maximum (waitForRoom), so its waiters need not
	// watch their own nodes.
	guardOpts := []mutex.Option{mutex.WithData(o.data), mutex.WithErrorPolicy(o.policy),
		mutex.WithKind("semaphore.guard", "semaphore guard hold"), mutex.WithOrderOnly(),
		mutex.WithUnobserved(), // the semaphore's acquire covers the guard's
		mutex.WithWatchedQueue(guardWatchedQueue)}
	if o.logger != nil {
		guardOpts = append(guardOpts, mutex.WithLogger(o.logger))
	}
	guard, err := mutex.New(client, zkpath.Join(path, locksDir), guardOpts...)
	if err != nil {
		return nil, err
	}
	o.data = o.leaseNodeData()
	return &Semaphore{
		client: client, path: path, leases: zkpath.Join(path, leasesDir),
		guard: guard, max: max, count: count, opts: o,
	}, nil
}

// Path returns the semaphore's path.
func (s *Semaphore) Path() string { return s.path }

// Acquire blocks until it holds one lease, and returns it. If ctx ends
// first, the error wraps the context's error and no lease node is left
// behind. If the session is lost while it waits, the error wraps ErrLost.
func (s *Semaphore) Acquire(ctx context.Context) (*leases.Lease, error) {
	ls, err := s.acquire(ctx, 1, false)
	if err != nil {
		return nil, err
	}
	return ls[0], nil
}

// AcquireN blocks until it holds n leases at once, and returns them: all or
// nothing, and atomic across processes, since the n lease nodes are created
// in one transaction. Two acquirers of several leases each therefore never
// hold part of what they want while waiting for the rest, and cannot
// deadlock each other. n must be at least 1 and, for a fixed maximum, at
// most the maximum (ErrInvalidArgument, at once); with a shared count, an n
// above the current maximum waits for the count to rise.
func (s *Semaphore) AcquireN(ctx context.Context, n int) ([]*leases.Lease, error) {
	return s.acquire(ctx, n, false)
}

// TryAcquire makes one attempt, as AcquireTimeout with a zero timeout: it
// returns a lease if the guard is free and a lease is free, and
// ErrNotAcquired if either is held by others, leaving nothing behind.
func (s *Semaphore) TryAcquire(ctx context.Context) (*leases.Lease, error) {
	return s.AcquireTimeout(ctx, 0)
}

// TryAcquireN makes one attempt at n leases at once, as AcquireNTimeout
// with a zero timeout: all n or none, ErrNotAcquired when the guard or too
// many leases are held by others, and nothing left behind.
func (s *Semaphore) TryAcquireN(ctx context.Context, n int) ([]*leases.Lease, error) {
	return s.AcquireNTimeout(ctx, n, 0)
}

// AcquireTimeout is Acquire bounded by timeout. When the time runs out
// while the leases are seen held by others, it returns ErrNotAcquired, not
// an error of the context; when it runs out while the server cannot be
// reached, an error wrapping ErrUnreachable and the connection's last
// failure. Either way it leaves no lease node behind. A zero or negative
// timeout makes one attempt, as Curator's acquire(0, unit) does: it takes
// a lease if the guard is free and a lease is free, and otherwise returns
// ErrNotAcquired.
func (s *Semaphore) AcquireTimeout(ctx context.Context, timeout time.Duration) (*leases.Lease, error) {
	ls, err := s.AcquireNTimeout(ctx, 1, timeout)
	if err != nil {
		return nil, err
	}
	return ls[0], nil
}

// AcquireNTimeout is AcquireN bounded by timeout, as AcquireTimeout is:
// one deadline covers the whole acquire.
func (s *Semaphore) AcquireNTimeout(ctx context.Context, n int, timeout time.Duration) ([]*leases.Lease, error) {
	if timeout <= 0 {
		return s.acquire(ctx, n, true)
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ls, err := s.acquire(tctx, n, false)
	return ls, recipe.TimeoutError(ctx, s.client, err, "semaphore: acquire "+s.path)
}

// Release gives back leases that this semaphore issued (Lease.Release
// each, in one request where they share a session). A nil lease fails the
// call with ErrInvalidArgument, a lease of another semaphore with
// ErrNotOwner, before anything is released.
func (s *Semaphore) Release(ctx context.Context, ls ...*leases.Lease) error {
	for _, l := range ls {
		if l == nil {
			return fmt.Errorf("%w: release to the semaphore %s: nil lease", ErrInvalidArgument, s.path)
		}
		if l.Client() != s.client || zkpath.Parent(l.Node()) != s.leases {
			return fmt.Errorf("%w: the lease was not issued by the semaphore %s", ErrNotOwner, s.path)
		}
	}
	return leases.ReleaseAll(ctx, ls...)
}

// Participants returns the lease nodes of the semaphore, its holders and
// the node of the one acquirer counting under the guard, in sequence order,
// each with its data as the participant's id. Curator processes' leases
// are included. The nodes are listed, then read in one multi-read (two
// requests; before ZooKeeper 3.6 a read per node, sent together); a node
// gone in between is left out.
func (s *Semaphore) Participants(ctx context.Context) ([]Participant, error) {
	sort := func(children []string) { zkpath.SortNodes(children, zkpath.LeaseName) }
	members, err := recipe.Participants(ctx, s.client, s.leases, sort, nil)
	if err != nil {
		return nil, fmt.Errorf("semaphore: participants of %s: %w", s.path, err)
	}
	ps := make([]Participant, len(members))
	for i, m := range members {
		ps[i] = Participant{Node: m.Path, ID: string(m.Data)}
	}
	return ps, nil
}

// Participant is one lease node of a semaphore.
type Participant struct {
	// Node is the path of the lease node, relative to the client's
	// namespace: path/leases/_c_<uuid>-lease-<sequence>.
	Node string
	// ID is the node's data, as text: the participant's id (see WithData;
	// Curator writes the client's default data, its IP address), empty if
	// none. The data of a time-bounded lease begins with its stamp
	// (leases.ParseStamp).
	ID string
}
