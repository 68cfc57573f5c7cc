package zktest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Curator's queues, in the peer: DistributedQueue and its kinds, and
// SimpleDistributedQueue. Items are strings without whitespace, UTF-8 on
// the wire. A lockPath of "" means none.

// CuratorQueueKind names a kind of Curator's DistributedQueue for the peer.
type CuratorQueueKind string

// The kinds of DistributedQueue the peer builds.
const (
	CuratorQueue         CuratorQueueKind = "queue"    // DistributedQueue
	CuratorPriorityQueue CuratorQueueKind = "priority" // DistributedPriorityQueue
	CuratorDelayQueue    CuratorQueueKind = "delay"    // DistributedDelayQueue
	CuratorIDQueue       CuratorQueueKind = "id"       // DistributedIdQueue
)

func curatorLockPath(lockPath string) string {
	if lockPath == "" {
		return "-"
	}
	return lockPath
}

// QueuePut puts items with a producer-only queue of kind on path (built with
// putInBackground(false)): one item with put, several in one node with putMulti
// (an id queue puts each with put). arg is the priority, the epoch in
// milliseconds or the id; "" for a plain queue.
func (c *Curator) QueuePut(ctx context.Context, kind CuratorQueueKind, path, lockPath, arg string, items ...string) error {
	if arg == "" {
		arg = "-"
	}
	args := append([]string{path, curatorLockPath(lockPath), string(kind), arg}, items...)
	_, err := c.Do(ctx, "queue-put", args...)
	return err
}

// QueueConsume starts, under handle, a consumer queue of kind on path that
// records the items it takes. A gated consumer's consumeMessage waits for a
// QueueRelease permit after recording each item, so that it holds the item
// (and its lock, with a lock path) meanwhile. A priority queue's consumer
// refreshes after each item.
func (c *Curator) QueueConsume(ctx context.Context, handle string, kind CuratorQueueKind, path, lockPath string, gated bool) error {
	args := []string{handle, path, curatorLockPath(lockPath), string(kind)}
	if gated {
		args = append(args, "gated")
	}
	_, err := c.Do(ctx, "queue-consume", args...)
	return err
}

// QueueTaken waits at most timeout until the consumer of handle has taken n
// items, and returns every item it has taken, in order.
func (c *Curator) QueueTaken(ctx context.Context, handle string, n int, timeout time.Duration) ([]string, error) {
	payload, err := c.Do(ctx, "queue-taken", handle, strconv.Itoa(n), curatorMillis(timeout))
	if err != nil {
		return nil, err
	}
	return curatorJSON(payload)
}

// QueueRelease lets n waiting (or later) consumeMessage calls of a gated
// consumer return.
func (c *Curator) QueueRelease(ctx context.Context, handle string, n int) error {
	_, err := c.Do(ctx, "queue-release", handle, strconv.Itoa(n))
	return err
}

// QueueClose closes the consumer of handle.
func (c *Curator) QueueClose(ctx context.Context, handle string) error {
	_, err := c.Do(ctx, "queue-close", handle)
	return err
}

// QueueRemove removes the items of id from the DistributedIdQueue on path, and
// returns how many it removed.
func (c *Curator) QueueRemove(ctx context.Context, path, lockPath, id string) (int, error) {
	payload, err := c.Do(ctx, "queue-remove", path, curatorLockPath(lockPath), id)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(payload)
}

// SimpleOffer offers item to the SimpleDistributedQueue on path.
func (c *Curator) SimpleOffer(ctx context.Context, path, item string) error {
	_, err := c.Do(ctx, "simple-offer", path, item)
	return err
}

// SimplePoll takes the head of the SimpleDistributedQueue on path, waiting at
// most timeout; false when none came.
func (c *Curator) SimplePoll(ctx context.Context, path string, timeout time.Duration) (string, bool, error) {
	return curatorSimpleItem(c.Do(ctx, "simple-poll", path, curatorMillis(timeout)))
}

// SimplePeek returns the head of the SimpleDistributedQueue on path without
// taking it; false when the queue is empty.
func (c *Curator) SimplePeek(ctx context.Context, path string) (string, bool, error) {
	return curatorSimpleItem(c.Do(ctx, "simple-peek", path))
}

func curatorSimpleItem(payload string, err error) (string, bool, error) {
	switch {
	case err != nil:
		return "", false, err
	case payload == "empty":
		return "", false, nil
	}
	item, ok := strings.CutPrefix(payload, "item ")
	if !ok {
		return "", false, fmt.Errorf("zktest: unexpected curator reply %q", payload)
	}
	return item, true, nil
}
