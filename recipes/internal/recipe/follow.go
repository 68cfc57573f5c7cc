package recipe

import (
	"context"
	"time"
)

// Follow makes the channel of a Watch (CONTRIBUTING.md's "told of
// changes"): it holds first at once, then, each time changed fires, what
// again reads, if that differs from the last value sent. Only the latest
// value is kept: a reader that falls behind gets the newest, never a
// backlog. again returns the value read (ok false: none to send, as for
// malformed data, but next to wait on), the channel to wait on next, and
// more false to end the watch. The channel is closed when ctx ends or
// again ends the watch.
func Follow[T comparable, E any](ctx context.Context, first T, changed <-chan E,
	again func(ctx context.Context) (v T, ok bool, next <-chan E, more bool)) <-chan T {
	out := make(chan T, 1)
	out <- first
	// Ends when ctx ends or again ends the watch; it closes out.
	go follow(ctx, out, first, changed, again)
	return out
}

func follow[T comparable, E any](ctx context.Context, out chan T, last T, changed <-chan E,
	again func(context.Context) (T, bool, <-chan E, bool)) {
	defer close(out)
	for {
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
		v, ok, next, more := again(ctx)
		if !more {
			return
		}
		changed = next
		if ok && v != last {
			last = v
			offer(out, v)
		}
	}
}

// offer puts v in out, replacing a value the reader has not taken yet.
// Only follow sends on out, so the send after the drain cannot block.
func offer[T any](out chan T, v T) {
	select {
	case <-out:
	default:
	}
	out <- v
}

// Sleep waits for d or the end of ctx, and then returns ctx's error (nil
// when d passed first).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
