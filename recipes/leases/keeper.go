package leases

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Renewer is a time-bounded permit that a Keeper can renew: a *Lease with
// a bound, or a *mutex.Hold of a mutex with a maximum hold time.
type Renewer interface {
	// Renew proves the holder alive and moves its deadline.
	Renew(ctx context.Context) error
	// Lost is closed when the permit ends without a release.
	Lost() <-chan struct{}
	// MaxHold is the time the permit may go without a renewal.
	MaxHold() time.Duration
}

// Keeper renews a permit while a context of the caller's lives, as
// Redisson's lock watchdog does: the permit is then bounded by the life of
// that context instead of the work's, and a holder whose process hangs as
// a whole, or that stops the keeper, loses it within its bound.
type Keeper struct {
	stop     context.CancelFunc // ends the keeper as the end of Keep's ctx does
	done     chan struct{}
	err      error // set before done is closed
	released bool  // the keeper gave the permit back; set before done is closed
}

// Keep starts a keeper that renews r every third of its bound (and, after
// a renewal that failed, every tenth, until one succeeds or the bound
// passes) while ctx lives. When ctx ends, the keeper stops renewing and
// gives the permit back with release (such as Lease.Release or
// Hold.Release), under a context of its own bounded by 5 s; when the
// permit ends otherwise, it stops. r must have a bound (ErrInvalidArgument
// otherwise, and for a nil r or release). The keeper is one goroutine;
// Close ends it as the end of ctx does, and Done tells when it has
// finished.
//
// A keeper only proves that its goroutine runs and the server answers: let
// ctx end when the work it guards is stuck, or renew from the work itself
// (Renew) where progress is what must be proved.
func Keep(ctx context.Context, r Renewer, release func(context.Context) error) (*Keeper, error) {
	switch {
	case r == nil || release == nil:
		return nil, fmt.Errorf("%w: keep: nil permit or release", ErrInvalidArgument)
	case r.MaxHold() <= 0:
		return nil, fmt.Errorf("%w: keep: the permit has no bound to renew", ErrInvalidArgument)
	}
	ctx, stop := context.WithCancel(ctx)
	k := &Keeper{stop: stop, done: make(chan struct{})}
	// Ends when ctx ends or Close is called (after the release), or the
	// permit ends.
	go k.run(ctx, r, release)
	return k, nil
}

// Close ends the keeper as the end of Keep's ctx would: it stops renewing
// and gives the permit back with release. It returns once that is done,
// with the release's error, or when ctx ends first, with ctx's error (the
// release goes on). A keeper that had stopped already, its permit ended,
// gives nothing back, and Close returns nil.
func (k *Keeper) Close(ctx context.Context) error {
	k.stop()
	select {
	case <-k.done:
	case <-ctx.Done():
		return fmt.Errorf("leases: keeper: close: %w", ctx.Err())
	}
	if k.released {
		return k.err
	}
	return nil
}

// Done returns a channel that is closed when the keeper has stopped: after
// ctx ended and the permit was given back, or after the permit ended.
func (k *Keeper) Done() <-chan struct{} { return k.done }

// Err returns, once Done is closed, why the keeper stopped: nil if ctx
// ended (or Close was called) and the permit was given back, the release's
// error if that failed,
// or the error of the renewal that found the permit ended (wrapping
// ErrLost, ErrExpired or ErrReleased). Before that it returns nil.
func (k *Keeper) Err() error {
	select {
	case <-k.done:
		return k.err
	default:
		return nil
	}
}

func (k *Keeper) run(ctx context.Context, r Renewer, release func(context.Context) error) {
	defer close(k.done)
	defer k.stop() // frees ctx
	bound := r.MaxHold()
	every, again := bound/3, bound/10
	lost := r.Lost()
	t := time.NewTimer(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recipe.CleanupTimeout)
			k.err, k.released = release(rctx), true
			cancel()
			return
		case <-lost:
			k.err = r.Renew(ctx) // says why, without a request
			return
		case <-t.C:
		}
		// A slow answer still renews from when the renewal began; after a
		// whole bound it is too late anyway.
		rctx, cancel := context.WithTimeout(ctx, bound)
		err := r.Renew(rctx)
		cancel()
		switch {
		case err == nil:
			t.Reset(every)
		case errors.Is(err, ErrLost), errors.Is(err, ErrReleased), errors.Is(err, ErrInvalidArgument):
			k.err = err
			return
		default:
			t.Reset(again) // not renewed: the server was slow or unreachable
		}
	}
}
