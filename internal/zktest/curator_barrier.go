package zktest

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// BarrierSet sets the DistributedBarrier on path (creates its node).
func (c *Curator) BarrierSet(ctx context.Context, path string) error {
	_, err := c.Do(ctx, "barrier-set", path)
	return err
}

// BarrierRemove removes the DistributedBarrier on path (deletes its node).
func (c *Curator) BarrierRemove(ctx context.Context, path string) error {
	_, err := c.Do(ctx, "barrier-remove", path)
	return err
}

// BarrierWait waits at most timeout (forever when timeout < 0) for the
// DistributedBarrier on path to be removed, and reports whether it was.
func (c *Curator) BarrierWait(ctx context.Context, path string, timeout time.Duration) (bool, error) {
	payload, err := c.Do(ctx, "barrier-wait", path, curatorMillis(timeout))
	return curatorOutcome(payload, err, "passed")
}

// DoubleBarrierEnter makes handle a new member of the
// DistributedDoubleBarrier on path for members members and enters it,
// waiting at most timeout (forever when timeout < 0); it reports whether
// the member entered, and the peer's instants around its enter.
func (c *Curator) DoubleBarrierEnter(ctx context.Context, handle, path string, members int, timeout time.Duration) (bool, CuratorStamps, error) {
	payload, s, err := c.DoStamped(ctx, "ddb-enter", handle, path, strconv.Itoa(members), curatorMillis(timeout))
	ok, err := curatorOutcome(payload, err, "entered")
	return ok, s, err
}

// DoubleBarrierLeave makes the member of handle leave its double barrier,
// waiting at most timeout (forever when timeout < 0) for the others; it
// reports whether all left in time, and the peer's instants around its
// leave.
func (c *Curator) DoubleBarrierLeave(ctx context.Context, handle string, timeout time.Duration) (bool, CuratorStamps, error) {
	payload, s, err := c.DoStamped(ctx, "ddb-leave", handle, curatorMillis(timeout))
	ok, err := curatorOutcome(payload, err, "left")
	return ok, s, err
}

// curatorOutcome decodes a reply that is done or "timeout".
func curatorOutcome(payload string, err error, done string) (bool, error) {
	switch {
	case err != nil:
		return false, err
	case payload == done:
		return true, nil
	case payload == "timeout":
		return false, nil
	}
	return false, fmt.Errorf("zktest: unexpected curator reply %q", payload)
}
