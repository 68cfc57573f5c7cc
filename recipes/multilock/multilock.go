package multilock

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// Lock is several locks taken all or none, compatible with Curator's
// InterProcessMultiLock: its parts are taken one after the other, in
// order, and given up in reverse. It keeps no state of its own between
// calls, so it is safe for concurrent use as its parts are.
type Lock struct {
	parts []Part
}

// New returns the multi-lock of parts, taken in the order given. Every
// process that takes some of the same locks must name them in the same
// order, or two of them can each hold a lock the other waits for, for
// ever; NewSorted puts the parts in one order for everyone. New checks its
// arguments and does no I/O: no parts, a nil part, or two parts on one
// path (the same lock twice, or two locks on one path, such as the read
// and the write lock of one ReadWriteLock, which would wait for each
// other) give ErrInvalidArgument.
func New(parts ...Part) (*Lock, error) {
	if err := check(parts); err != nil {
		return nil, err
	}
	return &Lock{parts: slices.Clone(parts)}, nil
}

// NewSorted is New with the parts sorted by path, so that processes that
// name the same locks in different orders still take them in one order
// and cannot deadlock each other. Like New, it does no I/O.
func NewSorted(parts ...Part) (*Lock, error) {
	if err := check(parts); err != nil {
		return nil, err
	}
	sorted := slices.Clone(parts)
	slices.SortFunc(sorted, func(a, b Part) int { return cmp.Compare(a.Path(), b.Path()) })
	return &Lock{parts: sorted}, nil
}

// check refuses what could never be taken, before anything is sent.
func check(parts []Part) error {
	if len(parts) == 0 {
		return fmt.Errorf("multilock: new: %w: no parts", ErrInvalidArgument)
	}
	seen := make(map[string]int, len(parts))
	for i, p := range parts {
		if p == nil || !p.valid() {
			return fmt.Errorf("multilock: new: %w: part %d is nil", ErrInvalidArgument, i)
		}
		if j, dup := seen[p.Path()]; dup {
			return fmt.Errorf("multilock: new: %w: parts %d and %d are both on %s", ErrInvalidArgument, j, i, p.Path())
		}
		seen[p.Path()] = i
	}
	return nil
}

// Paths returns the parts' paths, in the order they are taken.
func (l *Lock) Paths() []string {
	paths := make([]string, len(l.parts))
	for i, p := range l.parts {
		paths[i] = p.Path()
	}
	return paths
}

// Acquire blocks until the owner in ctx (mutex.ContextWithOwner, or else the
// calling goroutine) holds every part, taken in order, and returns the
// hold. If ctx ends or a part fails first, the parts taken so far are
// released, in reverse order, and nothing is left behind; the error wraps
// the context's error or the part's. Each part is reentrant as its lock
// is: an owner that holds a mutex part already counts up on it.
func (l *Lock) Acquire(ctx context.Context) (*Hold, error) {
	return l.acquire(ctx, -1)
}

// TryAcquire makes one attempt on each part, in order: it returns the hold
// if every part could be taken at once, and ErrNotAcquired, with the parts
// taken so far released and nothing left behind, at the first part held
// by others.
func (l *Lock) TryAcquire(ctx context.Context) (*Hold, error) {
	return l.acquire(ctx, 0)
}

// AcquireTimeout is Acquire bounded by timeout, for all the parts
// together: each part waits at most what is left of it, and a part reached
// when it has run out gets one attempt, so that the timeout bounds the
// waiting for locks held by others, not the taking of free ones. As the
// parts' own AcquireTimeout, it returns ErrNotAcquired when the time ran
// out while a part was seen held by others, and ErrUnreachable when it ran
// out while the server could not be reached; either way the parts taken
// are released and nothing is left behind. A zero or negative timeout
// makes one attempt on each part, as TryAcquire does. A part reached with
// less time left than its server takes to answer runs out before the
// answer, and reports ErrUnreachable ("the deadline ran out before the
// server answered"), as its own AcquireTimeout does with so short a
// timeout: give the timeout room for one answer per part.
func (l *Lock) AcquireTimeout(ctx context.Context, timeout time.Duration) (*Hold, error) {
	return l.acquire(ctx, max(timeout, 0))
}

// acquire takes the parts in order; wait < 0 blocks, 0 makes one attempt
// on each, and a positive wait bounds all of them together.
func (l *Lock) acquire(ctx context.Context, wait time.Duration) (*Hold, error) {
	// The owner is checked before any part is asked, so that a bad owner
	// fails the same way whatever the parts (a semaphore part has no
	// owner to check).
	if _, err := mutex.OwnerOf(ctx); err != nil {
		return nil, fmt.Errorf("multilock: acquire %s: %w", l.describe(), err)
	}
	deadline := time.Now().Add(wait)
	held := make([]PartHold, 0, len(l.parts))
	for i, p := range l.parts {
		left := wait
		if wait > 0 {
			left = max(time.Until(deadline), 0)
		}
		h, err := p.acquire(ctx, left)
		if err != nil {
			return nil, l.undo(ctx, held, fmt.Errorf("multilock: acquire part %d: %w", i, err))
		}
		held = append(held, h)
	}
	// A part may have been lost while the later ones were waited for; a
	// hold that is lost when handed out would only mislead. Err sends
	// nothing: it sees what the parts' sessions and watches have told.
	for _, h := range held {
		if err := h.Err(); err != nil {
			return nil, l.undo(ctx, held, fmt.Errorf("multilock: acquire: %s lost while the later parts were taken: %w", h.Node(), err))
		}
	}
	return newHold(l, held), nil
}

// undo releases the parts held, in reverse order, after an acquire failed
// with err, and returns err. The releases finish after ctx has ended, as
// every release of the library does. Their own errors (a part already
// lost, a delete handed to the background) are told in the message but
// not wrapped: the caller branches on why the acquire failed.
func (l *Lock) undo(ctx context.Context, held []PartHold, err error) error {
	if rerr := l.releaseAll(ctx, held); rerr != nil {
		return fmt.Errorf("%w (while releasing the parts taken: %v)", err, rerr)
	}
	return err
}

// describe names the multi-lock in messages by its paths.
func (l *Lock) describe() string {
	return "[" + strings.Join(l.Paths(), " ") + "]"
}
