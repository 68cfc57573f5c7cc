package mutex

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/internal/holdwatch"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
	"github.com/zkrecipes/zkrecipes/recipes/mutex/lockdriver"
)

// Mutex is an inter-process lock on one ZooKeeper path, compatible with
// Curator's InterProcessMutex. It is reentrant per owner (by default the
// calling goroutine; see ContextWithOwner) and safe for concurrent use: goroutines
// sharing one Mutex exclude each other as separate processes do.
type Mutex struct {
	client *framework.Client
	engine engine
	opts   options
	kind   holdwatch.Kind // what every hold's watch shares

	mu     sync.Mutex
	owners ownerTable // each owner's hold, or its acquire under way
}

// New returns a Mutex on path, whose lock nodes are
// path/_c_<uuid>-lock-<sequence>. It checks its arguments and does no I/O.
func New(client *framework.Client, path string, opts ...Option) (*Mutex, error) {
	return NewWithDriver(client, path, zkpath.LockName, lockdriver.StandardDriver(1), opts...)
}

// NewWithDriver returns a lock whose nodes are named lockName and judged by
// driver, as Curator's InterProcessMutex constructor with a driver: the
// read/write lock builds its two locks this way. The driver is given
// lockName, and orders the queue by what follows it in each name, as
// Curator's fixForSorting(child, lockName).
func NewWithDriver(client *framework.Client, path, lockName string, driver lockdriver.Driver, opts ...Option) (*Mutex, error) {
	if err := recipe.CheckPath(client, path, ErrInvalidArgument); err != nil {
		return nil, err
	}
	if driver == nil {
		return nil, fmt.Errorf("%w: nil driver", ErrInvalidArgument)
	}
	if err := zkpath.ValidateName(lockName); err != nil {
		return nil, fmt.Errorf("%w: lock name: %w", ErrInvalidArgument, err)
	}
	o, err := recipe.Options(opts, ErrInvalidArgument)
	if err != nil {
		return nil, err
	}
	if o.name == "" {
		o.name = "mutex"
	}
	if !o.kindSet {
		o.kind, o.what = "mutex", "lock hold"
	}
	if o.watchedQueue == 0 {
		o.watchedQueue = shortQueue
	}
	data := o.data
	if o.revoke != nil {
		data = nil
	}
	o.logger = recipe.Logger(o.logger, client, component(o.kind))
	reported := o.kind
	if o.unobserved {
		reported = "" // holdwatch reports no hold of an empty kind
	}
	return &Mutex{
		client: client,
		engine: engine{client: client, dir: path, lockName: lockName, driver: driver, data: data, place: o.place, prefix: zkpath.Join(path, lockName),
			watchOwn: !o.orderOnly, watchedQueue: o.watchedQueue},
		opts: o,
		kind: holdwatch.Kind{
			Client: client, Policy: o.policy, MaxHold: o.maxHold,
			Lost: ErrLost, Expired: ErrExpired, What: o.what, KeepNode: o.keep,
			Recipe: reported, Log: o.logger, Origin: time.Now(),
		},
	}, nil
}

// Acquire blocks until the owner in ctx (or the calling goroutine) holds
// the lock, and returns the hold. If ctx ends first, the error wraps the
// context's error and nothing is left behind: the waiter's node is deleted
// before Acquire returns, or, if its create was still on its way to the
// server, by the client in the background once the answer is in. If the
// owner holds the lock already, Acquire counts up and returns at once,
// without a server call; if another acquire by the same owner is under
// way, it waits for that one and then counts up on its hold.
func (m *Mutex) Acquire(ctx context.Context) (*Hold, error) {
	return m.acquire(ctx, false)
}

// TryAcquire makes one attempt: it returns the hold if the lock is free,
// and ErrNotAcquired if someone else holds it, leaving nothing behind.
func (m *Mutex) TryAcquire(ctx context.Context) (*Hold, error) {
	return m.acquire(ctx, true)
}

// AcquireTimeout is Acquire bounded by timeout. When the time runs out
// while the lock is seen held by others, it returns ErrNotAcquired, not an
// error of the context; when it runs out while the server cannot be
// reached (for the whole wait, or its end), it returns an error wrapping
// ErrUnreachable and the connection's last failure, since nobody can say
// whether the lock was free. Either way nothing is left behind. A zero or
// negative timeout makes one attempt, as TryAcquire does.
func (m *Mutex) AcquireTimeout(ctx context.Context, timeout time.Duration) (*Hold, error) {
	if timeout <= 0 {
		return m.acquire(ctx, true)
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	h, err := m.acquire(tctx, false)
	return h, recipe.TimeoutError(ctx, m.client, err, m.opts.name+": acquire "+m.engine.dir)
}

func (m *Mutex) acquire(ctx context.Context, once bool) (*Hold, error) {
	owner, err := ownerOf(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: acquire %s: %w", m.opts.name, m.engine.dir, err)
	}
	if h, err := m.join(ctx, owner); h != nil || err != nil {
		return h, err
	}
	var report recipe.Acquiring // reports nothing WithUnobserved
	if !m.opts.unobserved {
		report = recipe.StartAcquire(ctx, m.client, m.opts.kind, m.engine.dir)
	}
	a, err := m.engine.acquire(ctx, once)
	if err == nil {
		if err = m.stillHeld(ctx, a); err != nil {
			a.sub.release() // no hold takes it over
		}
	}
	report.Done(err)
	var h *Hold
	if err == nil {
		h = newHold(m, owner, a)
	}
	m.mu.Lock()
	if state, _ := m.owners.get(owner); state.under != nil {
		close(state.under)
	}
	if h != nil {
		m.owners.set(owner, ownerState{hold: h})
	} else {
		m.owners.remove(owner)
	}
	m.mu.Unlock()
	if err != nil {
		return nil, m.acquireError(err)
	}
	return h, nil
}

// acquireError is the error of a failed acquire; a client closed under the
// wait says so (recipe.ClosedError).
func (m *Mutex) acquireError(err error) error {
	return fmt.Errorf("%s: acquire %s: %w", m.opts.name, m.engine.dir, recipe.ClosedError(m.client, err))
}

// stillHeld fails with ErrLost, and deletes the node, when its session was
// interrupted (under the error policy) by the time the lock was taken: a
// hold of that session would be lost the moment it was handed out, and
// under the standard policy someone else may already hold the lock.
func (m *Mutex) stillHeld(ctx context.Context, a acquired) error {
	if !a.node.Session.IsInterrupted(m.opts.policy) {
		return nil
	}
	m.engine.discard(ctx, a.node)
	return fmt.Errorf("%w: connection or session lost as the lock was taken", ErrLost)
}

// join counts up on owner's hold, if it has one. Otherwise it records an
// acquire under way for owner and returns nil, so that the caller goes to
// the server; a concurrent acquire by the same owner waits for that one to
// end and then joins its hold, instead of queueing a second node.
func (m *Mutex) join(ctx context.Context, owner any) (*Hold, error) {
	for {
		m.mu.Lock()
		state, busy := m.owners.get(owner)
		if h := state.hold; h != nil {
			defer m.mu.Unlock()
			if err := h.Err(); err != nil {
				return nil, fmt.Errorf("%s: acquire %s: %w: release the lost hold first", m.opts.name, m.engine.dir, err)
			}
			h.count++
			return h, nil
		}
		if !busy {
			m.owners.set(owner, ownerState{}) // no one waits for it yet
			m.mu.Unlock()
			return nil, nil
		}
		if state.under == nil {
			state.under = make(chan struct{})
			m.owners.set(owner, state)
		}
		m.mu.Unlock()
		select {
		case <-state.under:
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: acquire %s: %w", m.opts.name, m.engine.dir, ctx.Err())
		}
	}
}

// Release gives up one level of the hold of the owner in ctx (or of the
// calling goroutine); at the last level it deletes the lock node, finishing
// after ctx has ended as every release of the library does (see
// recipe.Finish: ctx's values are kept, its end is not, and the client's
// retry policy bounds the delete). It returns ErrNotOwner if that owner
// holds nothing, and an error wrapping ErrLost if the hold was lost (its
// node is gone, or being deleted). If the delete fails, the hold is still
// given up and the node deleted in the background.
func (m *Mutex) Release(ctx context.Context) error {
	owner, err := ownerOf(ctx)
	if err != nil {
		return fmt.Errorf("%s: release %s: %w", m.opts.name, m.engine.dir, err)
	}
	return m.release(ctx, owner, nil)
}

// release gives up one level of owner's hold, in owner's turn (WithTurn);
// want, if given, must be it.
func (m *Mutex) release(ctx context.Context, owner any, want *Hold) error {
	if m.opts.turn != nil {
		defer m.opts.turn(owner)()
	}
	m.mu.Lock()
	if want != nil && want.count == 0 {
		m.mu.Unlock()
		return fmt.Errorf("%s: release %s: %w", m.opts.name, m.engine.dir, ErrReleased)
	}
	state, _ := m.owners.get(owner)
	h := state.hold
	if h == nil || (want != nil && h != want) {
		m.mu.Unlock()
		return fmt.Errorf("%s: release %s: %w", m.opts.name, m.engine.dir, ErrNotOwner)
	}
	h.count--
	if h.count > 0 {
		m.mu.Unlock()
		return nil
	}
	m.owners.remove(owner)
	m.mu.Unlock()
	if err := h.finish(ctx); err != nil {
		return fmt.Errorf("%s: release %s: %w", m.opts.name, m.engine.dir, err)
	}
	return nil
}

// Held returns the hold of the owner in ctx (or of the calling goroutine),
// or nil if that owner holds nothing, as Curator's isOwnedByCurrentThread.
// It sends nothing to the server.
func (m *Mutex) Held(ctx context.Context) *Hold {
	owner, err := ownerOf(ctx)
	if err != nil {
		return nil // such an owner can hold nothing
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	state, _ := m.owners.get(owner)
	return state.hold
}

// IsAcquiredInThisProcess reports whether any owner of this Mutex holds it.
func (m *Mutex) IsAcquiredInThisProcess() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.owners.held()
}

// Participants returns the lock nodes queued on the lock, in queue order:
// the holder first, each with its data as the participant's id. Nodes of
// Curator processes are included. The nodes are listed, then read in one
// multi-read (two requests; before ZooKeeper 3.6 a read per node, sent
// together); a node gone in between is left out.
func (m *Mutex) Participants(ctx context.Context) ([]Participant, error) {
	sort := func(children []string) { m.engine.driver.Sort(children, m.engine.lockName) }
	members, err := recipe.Participants(ctx, m.client, m.engine.dir, sort, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: participants of %s: %w", m.opts.name, m.engine.dir, err)
	}
	return participants(members), nil
}

// Path returns the lock's path.
func (m *Mutex) Path() string { return m.engine.dir }

// component is the log component of a lock of kind: the kind up to its
// first dot ("rwlock" for "rwlock.read").
func component(kind string) string {
	if i := strings.IndexByte(kind, '.'); i >= 0 {
		return kind[:i]
	}
	return kind
}
