package zktest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// CuratorStamps are the peer's own instants around one command, read from
// System.nanoTime on the command's thread: on Linux with OpenJDK that is
// CLOCK_MONOTONIC, the clock Monotonic reads.
type CuratorStamps struct {
	// Called is right before the peer called the command's operation.
	Called int64
	// Returned is right after the operation returned.
	Returned int64
}

// DoStamped is Do for a verb the peer stamps: it runs as Do would, and
// returns the payload with the peer's instants around the operation.
func (c *Curator) DoStamped(ctx context.Context, verb string, args ...string) (string, CuratorStamps, error) {
	payload, err := c.Do(ctx, "@"+verb, args...)
	if err != nil {
		return "", CuratorStamps{}, err
	}
	called, rest, _ := strings.Cut(payload, " ")
	returned, rest, _ := strings.Cut(rest, " ")
	var s CuratorStamps
	var errC, errR error
	s.Called, errC = strconv.ParseInt(called, 10, 64)
	s.Returned, errR = strconv.ParseInt(returned, 10, 64)
	if errC != nil || errR != nil {
		return "", CuratorStamps{}, fmt.Errorf("zktest: curator %s: unstamped reply %q", verb, payload)
	}
	return rest, s, nil
}

// Clock returns the peer's System.nanoTime.
func (c *Curator) Clock(ctx context.Context) (int64, error) {
	payload, err := c.Do(ctx, "clock")
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(payload, 10, 64)
}

// MutexAcquireAt is MutexAcquire that also returns when the peer's acquire
// returned, on the peer's clock.
func (c *Curator) MutexAcquireAt(ctx context.Context, handle, path string, timeout time.Duration) (bool, int64, error) {
	payload, s, err := c.DoStamped(ctx, "mutex-acquire", handle, path, curatorMillis(timeout))
	_, ok, err := curatorAcquired(payload, err)
	return ok, s.Returned, err
}

// MutexReleaseAt is MutexRelease that also returns when the peer began to
// release, on the peer's clock.
func (c *Curator) MutexReleaseAt(ctx context.Context, handle string) (int64, error) {
	_, s, err := c.DoStamped(ctx, "mutex-release", handle)
	return s.Called, err
}

// SemAcquireAt is SemAcquire that also returns when the peer's acquire
// returned, on the peer's clock.
func (c *Curator) SemAcquireAt(ctx context.Context, handle, path string, maxLeases, qty int, timeout time.Duration) ([]string, bool, int64, error) {
	payload, s, err := c.DoStamped(ctx, "sem-acquire", handle, path, strconv.Itoa(maxLeases), strconv.Itoa(qty), curatorMillis(timeout))
	names, ok, err := curatorAcquired(payload, err)
	return names, ok, s.Returned, err
}

// SemReleaseAt is SemRelease that also returns when the peer began to
// return the leases, on the peer's clock.
func (c *Curator) SemReleaseAt(ctx context.Context, handle string) (int64, error) {
	_, s, err := c.DoStamped(ctx, "sem-release", handle)
	return s.Called, err
}

// RWAcquireAt is RWAcquire that also returns when the peer's acquire
// returned, on the peer's clock.
func (c *Curator) RWAcquireAt(ctx context.Context, handle, path string, write bool, timeout time.Duration) (bool, int64, error) {
	payload, s, err := c.DoStamped(ctx, "rw-acquire", handle, path, curatorMode(write), curatorMillis(timeout))
	_, ok, err := curatorAcquired(payload, err)
	return ok, s.Returned, err
}

// RWReleaseAt is RWRelease that also returns when the peer began to
// release, on the peer's clock.
func (c *Curator) RWReleaseAt(ctx context.Context, handle string, write bool) (int64, error) {
	_, s, err := c.DoStamped(ctx, "rw-release", handle, curatorMode(write))
	return s.Called, err
}
