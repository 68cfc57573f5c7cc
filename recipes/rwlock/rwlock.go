package rwlock

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/mutex/lockdriver"
)

// ReadWriteLock is an inter-process read/write lock on one ZooKeeper path,
// compatible with Curator's InterProcessReadWriteLock: any number of
// readers or one writer hold it, served in arrival order. Its two locks
// are reentrant per owner and safe for concurrent use: goroutines sharing
// one ReadWriteLock exclude each other as separate processes do.
type ReadWriteLock struct {
	client      *framework.Client
	path        string
	read, write Lock

	mu    sync.Mutex
	turns map[any]chan struct{} // an owner's acquire under way; closed when it ends (turn.go)
}

// Lock is the read or the write lock of a ReadWriteLock.
type Lock struct {
	rw   *ReadWriteLock
	m    *mutex.Mutex
	name string // the node name: readName or writeName
	what string // begins its errors: "rwlock: read lock", "rwlock: write lock"
}

// Hold is one owner's hold on the read or the write lock: a mutex.Hold,
// with its loss signal, path and fencing token.
type Hold = mutex.Hold

// Participant is one node queued on the read or the write lock: its path
// and its data as the participant's id, as for a mutex.
type Participant = mutex.Participant

// New returns a read/write lock on path, whose nodes are
// path/_c_<uuid>-__READ__<sequence> and path/_c_<uuid>-__WRIT__<sequence>.
// It checks its arguments and does no I/O.
func New(client *framework.Client, path string, opts ...Option) (*ReadWriteLock, error) {
	if err := recipe.CheckPath(client, path, ErrInvalidArgument); err != nil {
		return nil, err
	}
	o, err := recipe.Options(opts, ErrInvalidArgument)
	if err != nil {
		return nil, err
	}
	rw := &ReadWriteLock{client: client, path: path, turns: make(map[any]chan struct{})}
	rw.read = Lock{rw: rw, name: readName, what: "rwlock: read lock"}
	rw.write = Lock{rw: rw, name: writeName, what: "rwlock: write lock"}
	common := slices.Clip(append(o.mutexOptions(), mutex.WithTurn(rw.releaseTurn)))
	w, err := mutex.NewWithDriver(client, path, writeName, writeDriver{}, append(common, mutex.WithName(rw.write.what), mutex.WithKind("rwlock.write", "write lock hold"))...)
	if err != nil {
		return nil, err
	}
	r, err := mutex.NewWithDriver(client, path, readName, readDriver{}, append(common, mutex.WithName(rw.read.what), mutex.WithKind("rwlock.read", "read lock hold"), mutex.WithPlace(rw.writersPlace))...)
	if err != nil {
		return nil, err
	}
	rw.read.m, rw.write.m = r, w
	return rw, nil
}

// ReadLock returns the read lock: held by any number of owners at once
// while no writer holds or is queued in front of them.
func (rw *ReadWriteLock) ReadLock() *Lock { return &rw.read }

// WriteLock returns the write lock: held by one owner alone.
func (rw *ReadWriteLock) WriteLock() *Lock { return &rw.write }

// Path returns the lock's path.
func (rw *ReadWriteLock) Path() string { return rw.path }

// writersPlace is the read lock's Place: an owner that holds the write
// lock takes the read lock at its write node's place (a downgrade), so
// that a writer queued behind stays out until the read lock is released
// too (Curator 5.5's fix of CURATOR-621). A write hold that is lost gives
// the loss: its place may be someone else's by now.
func (rw *ReadWriteLock) writersPlace(ctx context.Context) (lockdriver.Spot, bool, error) {
	h := rw.write.m.Held(ctx)
	switch {
	case h == nil:
		return lockdriver.Spot{}, false, nil
	case h.Err() != nil:
		return lockdriver.Spot{}, false, fmt.Errorf("the write hold to downgrade from is lost; release it first: %w", h.Err())
	}
	return lockdriver.Spot{Node: h.Node(), Sequence: sortKey(zkpath.Base(h.Node())), Session: h.Session()}, true, nil
}

// Acquire blocks until the owner in ctx (or the calling goroutine) holds
// the lock, and returns the hold. If ctx ends first, the error wraps the
// context's error and nothing is left behind. If the owner holds the lock
// already, Acquire counts up and returns at once, without a server call.
// The write holder may take the read lock (a downgrade): it holds at once,
// at the writer's place, or fails with an error wrapping ErrLost if the
// write node is gone. A read holder asking for the write lock gets
// ErrUpgrade at once.
func (l *Lock) Acquire(ctx context.Context) (*Hold, error) {
	return l.acquire(ctx, -1, l.m.Acquire)
}

// TryAcquire makes one attempt: it returns the hold if the lock can be
// taken now, and ErrNotAcquired otherwise, leaving nothing behind.
func (l *Lock) TryAcquire(ctx context.Context) (*Hold, error) {
	return l.acquire(ctx, 0, l.m.TryAcquire)
}

// AcquireTimeout is Acquire bounded by timeout, as
// mutex.Mutex.AcquireTimeout: ErrNotAcquired when the lock was seen held
// by others, ErrUnreachable when the server could not be reached, nothing
// left behind either way, and one attempt for a zero or negative timeout.
func (l *Lock) AcquireTimeout(ctx context.Context, timeout time.Duration) (*Hold, error) {
	began := time.Now()
	return l.acquire(ctx, max(timeout, 0), func(ctx context.Context) (*Hold, error) {
		return l.m.AcquireTimeout(ctx, timeout-time.Since(began))
	})
}

// Release gives up one level of the hold of the owner in ctx (or of the
// calling goroutine); at the last level it deletes the lock node. Like
// mutex.Mutex.Release, it works in a defer after ctx has ended. It takes
// the owner's turn, as acquires do, so an explicit owner's release and
// downgrade never interleave; Hold.Release does the same. It returns
// ErrNotOwner if that owner holds nothing, and an error wrapping ErrLost
// if the hold was lost.
func (l *Lock) Release(ctx context.Context) error {
	return l.m.Release(ctx)
}

// Held returns the hold of the owner in ctx (or of the calling goroutine),
// or nil if that owner does not hold the lock. It sends nothing.
func (l *Lock) Held(ctx context.Context) *Hold { return l.m.Held(ctx) }

// IsAcquiredInThisProcess reports whether any owner holds this lock
// through this ReadWriteLock.
func (l *Lock) IsAcquiredInThisProcess() bool { return l.m.IsAcquiredInThisProcess() }

// Participants returns the nodes of this lock's kind (read or write)
// queued on the lock, Curator's included, in queue order: the holders
// first, each with its data as the participant's id (see
// mutex.Mutex.Participants).
func (l *Lock) Participants(ctx context.Context) ([]Participant, error) {
	keep := func(name string) bool { return strings.Contains(name, l.name) }
	members, err := recipe.Participants(ctx, l.rw.client, l.rw.path, sortQueue, keep)
	if err != nil {
		return nil, fmt.Errorf("rwlock: participants of %s: %w", l.rw.path, err)
	}
	ps := make([]Participant, len(members))
	for i, m := range members {
		ps[i] = Participant{Node: m.Path, ID: string(m.Data)}
	}
	return ps, nil
}

// acquire runs acquire in the owner's turn (takeTurn, waiting at most
// bound unless it is negative), after the upgrade check.
func (l *Lock) acquire(ctx context.Context, bound time.Duration, acquire func(context.Context) (*Hold, error)) (*Hold, error) {
	end, err := l.rw.takeTurn(ctx, l.what, bound)
	if err != nil {
		return nil, err
	}
	defer end()
	if err := l.checkUpgrade(ctx); err != nil {
		return nil, err
	}
	return acquire(ctx)
}

// checkUpgrade refuses the write lock to an owner that holds only the read
// lock: its own read node would stand in its way forever. A read hold that
// is lost gives the loss instead: the owner is to release it, and may then
// take the write lock.
func (l *Lock) checkUpgrade(ctx context.Context) error {
	if l.name != writeName || l.m.Held(ctx) != nil {
		return nil
	}
	r := l.rw.read.m.Held(ctx)
	switch {
	case r == nil:
		return nil
	case r.Err() != nil:
		return fmt.Errorf("%s: acquire %s: the read hold is lost; release it first: %w", l.what, l.rw.path, r.Err())
	}
	return fmt.Errorf("%s: acquire %s: %w; release the read lock first", l.what, l.rw.path, ErrUpgrade)
}
