package zktest

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// CuratorAtomic is what Curator's AtomicValue answered for one operation of
// a DistributedAtomicLong or DistributedAtomicInteger.
type CuratorAtomic struct {
	Succeeded       bool
	Pre, Post       int64
	OptimisticTries int
	PromotedTries   int
}

// AtomicLongAdd adds delta to the DistributedAtomicLong on path, with
// RetryNTimes(retries, 10 ms), and, when lockPath is not empty,
// PromotedToLock on lockPath with the same retries.
func (c *Curator) AtomicLongAdd(ctx context.Context, path string, delta int64, retries int, lockPath string) (CuratorAtomic, error) {
	return c.atomic(ctx, "dal-add", path, strconv.FormatInt(delta, 10), strconv.Itoa(retries), lockPath)
}

// AtomicLongGet reads the DistributedAtomicLong on path (0 when missing).
func (c *Curator) AtomicLongGet(ctx context.Context, path string) (int64, error) {
	r, err := c.atomic(ctx, "dal-get", path)
	return r.Pre, err
}

// AtomicLongForceSet writes v to the DistributedAtomicLong on path.
func (c *Curator) AtomicLongForceSet(ctx context.Context, path string, v int64) error {
	_, err := c.Do(ctx, "dal-force-set", path, strconv.FormatInt(v, 10))
	return err
}

// AtomicIntAdd is AtomicLongAdd for a DistributedAtomicInteger.
func (c *Curator) AtomicIntAdd(ctx context.Context, path string, delta int32, retries int, lockPath string) (CuratorAtomic, error) {
	return c.atomic(ctx, "dai-add", path, strconv.FormatInt(int64(delta), 10), strconv.Itoa(retries), lockPath)
}

// AtomicIntGet reads the DistributedAtomicInteger on path (0 when missing).
func (c *Curator) AtomicIntGet(ctx context.Context, path string) (int32, error) {
	r, err := c.atomic(ctx, "dai-get", path)
	return int32(r.Pre), err
}

// AtomicValueGet reads the DistributedAtomicValue on path: nil when the
// node is missing.
func (c *Curator) AtomicValueGet(ctx context.Context, path string) ([]byte, error) {
	payload, err := c.Do(ctx, "dav-get", path)
	if err != nil || payload == "-" {
		return nil, err
	}
	return hex.DecodeString(payload)
}

// AtomicValueForceSet writes v to the DistributedAtomicValue on path.
func (c *Curator) AtomicValueForceSet(ctx context.Context, path string, v []byte) error {
	arg := hex.EncodeToString(v)
	if arg == "" {
		arg = "-"
	}
	_, err := c.Do(ctx, "dav-force-set", path, arg)
	return err
}

// atomic sends verb with args (an empty last one left out) and decodes
// "<succeeded> <pre> <post> <optimisticTries> <promotedTries>".
func (c *Curator) atomic(ctx context.Context, verb string, args ...string) (CuratorAtomic, error) {
	if len(args) > 0 && args[len(args)-1] == "" {
		args = args[:len(args)-1]
	}
	payload, err := c.Do(ctx, verb, args...)
	if err != nil {
		return CuratorAtomic{}, err
	}
	f := strings.Fields(payload)
	if len(f) != 5 {
		return CuratorAtomic{}, fmt.Errorf("zktest: unexpected curator reply %q", payload)
	}
	var r CuratorAtomic
	var errs [4]error
	r.Succeeded = f[0] == "true"
	r.Pre, errs[0] = strconv.ParseInt(f[1], 10, 64)
	r.Post, errs[1] = strconv.ParseInt(f[2], 10, 64)
	r.OptimisticTries, errs[2] = strconv.Atoi(f[3])
	r.PromotedTries, errs[3] = strconv.Atoi(f[4])
	for _, e := range errs {
		if e != nil {
			return CuratorAtomic{}, fmt.Errorf("zktest: unexpected curator reply %q: %w", payload, e)
		}
	}
	return r, nil
}
