package zktest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// curatorMillis renders a timeout for the peer: milliseconds, or -1 (wait forever) when negative.
func curatorMillis(d time.Duration) string {
	if d < 0 {
		return "-1"
	}
	return strconv.FormatInt(d.Milliseconds(), 10)
}

// curatorAcquired decodes "acquired [leases]" or "timeout".
func curatorAcquired(payload string, err error) (leases []string, ok bool, _ error) {
	switch {
	case err != nil:
		return nil, false, err
	case payload == "timeout":
		return nil, false, nil
	case payload == "acquired":
		return nil, true, nil
	}
	rest, found := strings.CutPrefix(payload, "acquired ")
	if !found {
		return nil, false, fmt.Errorf("zktest: unexpected curator reply %q", payload)
	}
	leases, err = curatorJSON(rest)
	return leases, err == nil, err
}

// MutexAcquire acquires the InterProcessMutex of handle on path, waiting at most timeout
// (forever when timeout < 0); it reports false when the time ran out. Acquiring again on a
// handle that holds the lock re-enters it, as in Curator.
func (c *Curator) MutexAcquire(ctx context.Context, handle, path string, timeout time.Duration) (bool, error) {
	_, ok, err := curatorAcquired(c.Do(ctx, "mutex-acquire", handle, path, curatorMillis(timeout)))
	return ok, err
}

// MutexRelease releases the mutex of handle once.
func (c *Curator) MutexRelease(ctx context.Context, handle string) error {
	_, err := c.Do(ctx, "mutex-release", handle)
	return err
}

// MutexParticipants returns the full paths of the lock nodes under path in queue order.
func (c *Curator) MutexParticipants(ctx context.Context, path string) ([]string, error) {
	return c.participants(ctx, "mutex-participants", path)
}

// SemAcquire acquires qty leases of the InterProcessSemaphoreV2 on path with maxLeases for
// handle, waiting at most timeout (forever when timeout < 0). It returns the lease node
// names (not paths), or false when the time ran out.
func (c *Curator) SemAcquire(ctx context.Context, handle, path string, maxLeases, qty int, timeout time.Duration) ([]string, bool, error) {
	return curatorAcquired(c.Do(ctx, "sem-acquire", handle, path, strconv.Itoa(maxLeases), strconv.Itoa(qty), curatorMillis(timeout)))
}

// SemAcquireCounted is SemAcquire with the lease count read from the SharedCount on countPath.
func (c *Curator) SemAcquireCounted(ctx context.Context, handle, path, countPath string, qty int, timeout time.Duration) ([]string, bool, error) {
	return curatorAcquired(c.Do(ctx, "sem-acquire-counted", handle, path, countPath, strconv.Itoa(qty), curatorMillis(timeout)))
}

// SemRelease returns every lease handle holds.
func (c *Curator) SemRelease(ctx context.Context, handle string) error {
	_, err := c.Do(ctx, "sem-release", handle)
	return err
}

// SemParticipants returns the lease node names under path/leases; Curator fails with
// NoNodeException when no lease was ever taken there.
func (c *Curator) SemParticipants(ctx context.Context, path string, maxLeases int) ([]string, error) {
	return c.participants(ctx, "sem-participants", path, strconv.Itoa(maxLeases))
}

func (c *Curator) participants(ctx context.Context, verb string, args ...string) ([]string, error) {
	payload, err := c.Do(ctx, verb, args...)
	if err != nil {
		return nil, err
	}
	return curatorJSON(payload)
}

// CountGet reads the SharedCount on path, creating it with 0 when missing.
func (c *Curator) CountGet(ctx context.Context, path string) (int, error) {
	payload, err := c.Do(ctx, "count-get", path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(payload)
}

// CountSet sets the SharedCount on path to n unconditionally.
func (c *Curator) CountSet(ctx context.Context, path string, n int) error {
	_, err := c.Do(ctx, "count-set", path, strconv.Itoa(n))
	return err
}

// CountTrySet sets the SharedCount on path to n if its node version is still version.
func (c *Curator) CountTrySet(ctx context.Context, path string, n, version int) (bool, error) {
	payload, err := c.Do(ctx, "count-trySet", path, strconv.Itoa(n), strconv.Itoa(version))
	return payload == "true", err
}

// RWAcquire acquires the write (or read) lock of the InterProcessReadWriteLock of handle on
// path, waiting at most timeout (forever when timeout < 0); it reports false when the time ran out.
func (c *Curator) RWAcquire(ctx context.Context, handle, path string, write bool, timeout time.Duration) (bool, error) {
	_, ok, err := curatorAcquired(c.Do(ctx, "rw-acquire", handle, path, curatorMode(write), curatorMillis(timeout)))
	return ok, err
}

// RWRelease releases the write (or read) lock of handle once.
func (c *Curator) RWRelease(ctx context.Context, handle string, write bool) error {
	_, err := c.Do(ctx, "rw-release", handle, curatorMode(write))
	return err
}

// RWParticipants returns the full paths of the write (or read) lock's participants under path,
// as Curator's InterProcessReadWriteLock lists them, in queue order.
func (c *Curator) RWParticipants(ctx context.Context, path string, write bool) ([]string, error) {
	return c.participants(ctx, "rw-participants", path, curatorMode(write))
}

// RWQueue returns the names of every child of the InterProcessReadWriteLock's directory at path,
// readers and writers, in the order Curator judges them: LockInternals.getSortedChildren with the
// lock's own driver, a stable sort of the server's listing by sort key.
func (c *Curator) RWQueue(ctx context.Context, path string) ([]string, error) {
	return c.participants(ctx, "rw-queue", path)
}

func curatorMode(write bool) string {
	if write {
		return "write"
	}
	return "read"
}

// MultiAcquire acquires, for handle, Curator's InterProcessMultiLock of parts, each a path
// (an InterProcessMutex) or "read:", "write:" or "sem:" before a path (a read/write lock's side,
// an InterProcessSemaphoreMutex), waiting at most timeout (forever when timeout < 0); it reports
// false when the time ran out. Acquiring again with the same parts re-enters the lock, as in
// Curator; a handle holding nothing may name other parts.
func (c *Curator) MultiAcquire(ctx context.Context, handle string, timeout time.Duration, parts ...string) (bool, error) {
	args := append([]string{handle, curatorMillis(timeout)}, parts...)
	_, ok, err := curatorAcquired(c.Do(ctx, "multi-acquire", args...))
	return ok, err
}

// MultiRelease releases the multi-lock of handle once, its parts in reverse order.
func (c *Curator) MultiRelease(ctx context.Context, handle string) error {
	_, err := c.Do(ctx, "multi-release", handle)
	return err
}

// Revoke asks the holder of the lock node at nodePath to release it (Revoker.attemptRevoke).
func (c *Curator) Revoke(ctx context.Context, nodePath string) error {
	_, err := c.Do(ctx, "revoke", nodePath)
	return err
}

// LockNode returns the node with which handle's lock of kind ("mutex", "read" or "write") is
// held, "" when it holds none, and the peer's current session id. A hold whose node belongs to
// another session is one Curator 5.4 took, or kept, after it left that session itself: the
// server will delete the node at that session's expiry and let the next waiter in without
// Curator's knowing (CURATOR-604).
func (c *Curator) LockNode(ctx context.Context, handle, kind string) (node string, session int64, err error) {
	payload, err := c.Do(ctx, "lock-node", handle, kind)
	if err != nil {
		return "", 0, err
	}
	node, id, found := strings.Cut(payload, " ")
	session, perr := strconv.ParseInt(id, 10, 64)
	if !found || perr != nil {
		return "", 0, fmt.Errorf("zktest: unexpected curator reply %q", payload)
	}
	if node == "-" {
		node = ""
	}
	return node, session, nil
}

// Session returns the session id of the peer's ZooKeeper handle right now: 0 while a handle
// that Curator made afresh (after a real or injected expiry) has no session yet.
func (c *Curator) Session(ctx context.Context) (int64, error) {
	payload, err := c.Do(ctx, "session")
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(payload, 10, 64)
}

// CreateCompressed creates path (and its parents) with text as its data,
// gzip-compressed as Curator compresses it.
func (c *Curator) CreateCompressed(ctx context.Context, path, text string) error {
	_, err := c.Do(ctx, "create-compressed", path, text)
	return err
}

// CacheSnapshot loads a CuratorCache of path and returns its nodes as
// "path=data@version", sorted; compressed reads gzip data.
func (c *Curator) CacheSnapshot(ctx context.Context, path string, compressed bool) ([]string, error) {
	args := []string{path}
	if compressed {
		args = append(args, "compressed")
	}
	out, err := c.Do(ctx, "cache-snapshot", args...)
	if err != nil {
		return nil, err
	}
	return curatorJSON(out)
}
