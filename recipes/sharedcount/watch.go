package sharedcount

import (
	"context"
	"errors"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/internal/recipe"
)

// Watch follows the count. The returned channel receives the current value
// at once, then every new value (a new version), until ctx ends or the
// client is closed; then it is closed. A reader that falls behind is given
// the latest value only. The watch is re-armed after each change, across
// connection loss and session expiry, at one request per change.
//
// Watch fails at once if the first read fails (for example with
// ErrMalformedCount). Later malformed data is logged and skipped until a
// count is written again; other failures are retried as the client's
// retry policy allows (Hooks.RetryWait). When the policy gives up, that
// is logged, the last value stands, and the watch reads again a second
// later, with the policy's tries anew, as the leader's Watch does.
func (s *SharedCount) Watch(ctx context.Context) (<-chan Value, error) {
	v, changed, err := s.Cached(ctx)
	if err != nil {
		return nil, err
	}
	return recipe.Follow(ctx, v, changed, s.reread), nil
}

// watchPause is how long a watch waits before it reads again once the
// client's retry policy has given up on a read.
const watchPause = time.Second

// reread reads the count after a change until it gets an answer: a value,
// or malformed data (ok false) with the channel to wait on for a repair.
// It reports no more when ctx ends or the client is closed.
func (s *SharedCount) reread(ctx context.Context) (v Value, ok bool, changed <-chan struct{}, more bool) {
	start := time.Now()
	for attempt := 0; ; attempt++ {
		var err error
		v, changed, err = s.Cached(ctx)
		switch {
		case err == nil:
			return v, true, changed, true
		case ctx.Err() != nil, errors.Is(err, framework.ErrClosed):
			return Value{}, false, nil, false
		case changed != nil:
			s.log().Warn("shared count is malformed; waiting for a repair", "path", s.path, "err", err)
			return Value{}, false, changed, true
		}
		if werr := s.client.Hooks().RetryWait(ctx, attempt, start); werr != nil {
			if ctx.Err() != nil || errors.Is(werr, framework.ErrClosed) {
				return Value{}, false, nil, false
			}
			// The policy bounds a read, not the watch: the reader asked to
			// follow the count until its ctx ends.
			s.log().Warn("shared count read failed; the watch reads again after a pause",
				"path", s.path, "err", err, "pause", watchPause)
			if recipe.Sleep(ctx, watchPause) != nil {
				return Value{}, false, nil, false
			}
			start, attempt = time.Now(), -1
			continue
		}
		s.log().Debug("shared count read failed; retrying", "path", s.path, "err", err)
	}
}
