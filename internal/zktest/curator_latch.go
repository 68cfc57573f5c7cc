package zktest

import (
	"context"
	"strconv"
	"time"
)

// LatchStart starts, under handle, a Curator LeaderLatch on path with the
// participant id id (not empty), in Curator's default (silent) close mode.
func (c *Curator) LatchStart(ctx context.Context, handle, path, id string) error {
	_, err := c.Do(ctx, "latch-start", handle, path, id)
	return err
}

// LatchAwait waits at most timeout for the latch of handle to lead, and
// reports whether it does.
func (c *Curator) LatchAwait(ctx context.Context, handle string, timeout time.Duration) (bool, error) {
	payload, err := c.Do(ctx, "latch-await", handle, strconv.FormatInt(timeout.Milliseconds(), 10))
	return payload == "true", err
}

// LatchHasLeadership reports whether the latch of handle believes it leads.
func (c *Curator) LatchHasLeadership(ctx context.Context, handle string) (bool, error) {
	payload, err := c.Do(ctx, "latch-has", handle)
	return payload == "true", err
}

// LatchNode returns the full path of the latch node of handle.
func (c *Curator) LatchNode(ctx context.Context, handle string) (string, error) {
	return c.Do(ctx, "latch-path", handle)
}

// LatchClose closes the latch of handle, deleting its node.
func (c *Curator) LatchClose(ctx context.Context, handle string) error {
	_, err := c.Do(ctx, "latch-close", handle)
	return err
}

// LatchAwaitAt is LatchAwait that also returns when the peer's await
// returned, on the peer's clock.
func (c *Curator) LatchAwaitAt(ctx context.Context, handle string, timeout time.Duration) (bool, int64, error) {
	payload, s, err := c.DoStamped(ctx, "latch-await", handle, strconv.FormatInt(timeout.Milliseconds(), 10))
	return payload == "true", s.Returned, err
}

// LatchCloseAt is LatchClose that also returns when the peer began to
// close, on the peer's clock.
func (c *Curator) LatchCloseAt(ctx context.Context, handle string) (int64, error) {
	_, s, err := c.DoStamped(ctx, "latch-close", handle)
	return s.Called, err
}
