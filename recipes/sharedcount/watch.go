package sharedcount

import (
	"context"
	"errors"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Watch follows the count. The returned channel receives the current value
// at once, then every new value (a new version), until ctx ends, the
// client is closed, or the client's retry policy gives up on a read; then
// it is closed. A reader that falls behind is given
// the latest value only. The watch is re-armed after each change, across
// connection loss and session expiry, at one request per change.
//
// Watch fails at once if the first read fails (for example with
// ErrMalformedCount). Later malformed data is logged and skipped until a
// count is written again; other failures are retried as the client's
// retry policy allows (Hooks.RetryWait), and logged when it gives up.
func (s *SharedCount) Watch(ctx context.Context) (<-chan Value, error) {
	v, changed, err := s.Cached(ctx)
	if err != nil {
		return nil, err
	}
	out := make(chan Value, 1)
	out <- v
	// Ends when ctx ends or the client is closed; it closes out.
	go s.follow(ctx, out, v, changed)
	return out, nil
}

// follow sends each new value to out after changed closes.
func (s *SharedCount) follow(ctx context.Context, out chan Value, last Value, changed <-chan struct{}) {
	defer close(out)
	for {
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
		v, next, ok := s.reread(ctx)
		if !ok {
			return
		}
		changed = next
		if v != nil && *v != last {
			last = *v
			offer(out, last)
		}
	}
}

// reread reads the count after a change until it gets an answer: a value,
// or malformed data (nil value) with the channel to wait on for a repair.
// It reports false when ctx ends, the client is closed, or the client's
// retry policy gives up.
func (s *SharedCount) reread(ctx context.Context) (*Value, <-chan struct{}, bool) {
	start := time.Now()
	for attempt := 0; ; attempt++ {
		v, changed, err := s.Cached(ctx)
		switch {
		case err == nil:
			return &v, changed, true
		case ctx.Err() != nil, errors.Is(err, framework.ErrClosed):
			return nil, nil, false
		case changed != nil:
			s.log().Warn("shared count is malformed; waiting for a repair", "path", s.path, "err", err)
			return nil, changed, true
		}
		if werr := s.client.Hooks().RetryWait(ctx, attempt, start); werr != nil {
			if ctx.Err() == nil && !errors.Is(werr, framework.ErrClosed) {
				s.log().Warn("shared count read failed; the watch ends", "path", s.path, "err", err)
			}
			return nil, nil, false
		}
		s.log().Debug("shared count read failed; retrying", "path", s.path, "err", err)
	}
}

// offer puts v in out, replacing a value the reader has not taken yet. Only
// one goroutine sends on out, so the second send cannot block.
func offer(out chan Value, v Value) {
	select {
	case out <- v:
		return
	default:
	}
	select {
	case <-out:
	default:
	}
	out <- v
}
