package framework

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// Waits between rounds of a background clean-up whose retries ran out.
const (
	backgroundMinWait = 100 * time.Millisecond
	backgroundMaxWait = 5 * time.Second
)

// DeleteInBackground deletes the node at path, retrying through connection
// loss until the node is gone or the client is closed, as Curator's
// guaranteed delete does. An error that no retry can cure (the node has
// children, the client lacks permission) is logged once, with the path,
// and ends it. The returned channel is closed when it is done.
func (c *Client) DeleteInBackground(path string) (<-chan struct{}, error) {
	sp, err := c.cleanupPath(path)
	if err != nil {
		return nil, err
	}
	return c.deleteInBackground(sp), nil
}

// cleanupPath checks a background clean-up's path and the client before
// anything starts, and returns the path on the server.
func (c *Client) cleanupPath(path string) (string, error) {
	sp, err := c.serverPath(path)
	if err != nil {
		return "", opError("delete", path, err)
	}
	if c.isClosed() {
		return "", ErrClosed
	}
	return sp, nil
}

// deleteInBackground deletes a server path in the background.
func (c *Client) deleteInBackground(serverPath string) <-chan struct{} {
	return c.background("delete", serverPath, nil, func(conn *zk.Conn) error {
		err := conn.Delete(serverPath, -1)
		if isNoNode(err) {
			return nil
		}
		return err
	})
}

// deleteOwnedInBackground deletes, in the background, the node at a server
// path if its ephemeral owner is owner (0: a persistent node), at the
// version it has then: a node the client must not keep, but which a later
// try, in the session that owns it, might adopt, is not touched once that
// session is not owner.
func (c *Client) deleteOwnedInBackground(serverPath string, owner int64) <-chan struct{} {
	return c.background("delete", serverPath, nil, func(conn *zk.Conn) error {
		ok, stat, err := conn.Exists(serverPath)
		switch {
		case err != nil:
			return err
		case !ok || stat.EphemeralOwner != owner:
			return nil
		}
		err = conn.Delete(serverPath, stat.Version)
		if isNoNode(err) || errors.Is(err, zk.ErrBadVersion) {
			return nil // gone, or written since: no longer the node we made
		}
		return err
	})
}

// The pauses before the second and third looks of a find-and-delete, for
// a cut-off request that the server applies late.
const (
	secondLook = time.Second
	thirdLook  = 5 * time.Second
)

// findAndDeleteInBackground deletes every child of parent (a server path)
// that carries one of ids and is not named in keep, once after is closed,
// and looks again secondLook and thirdLook later. The returned channel is
// closed after the first look.
func (c *Client) findAndDeleteInBackground(parent string, ids []string, keep map[string]bool, after <-chan struct{}) <-chan struct{} {
	return c.looks(parent, findAndDeleteLook(parent, ids, keep), after, []time.Duration{0, secondLook, thirdLook})
}

// lookLater runs look in the background secondLook from now, and again
// thirdLook after that.
func (c *Client) lookLater(parent string, look func(conn *zk.Conn) error) {
	c.looks(parent, look, nil, []time.Duration{secondLook, thirdLook})
}

// looks runs look on one goroutine that walks the schedule: once after is
// closed (nil: at once), it pauses before each look as long as the
// schedule says. The returned channel is closed after the first look.
func (c *Client) looks(parent string, look func(conn *zk.Conn) error, after <-chan struct{}, schedule []time.Duration) <-chan struct{} {
	first := make(chan struct{})
	// Ends after the last look, or when the client closes.
	started := c.spawn(func() {
		defer closeOnce(first)
		if after != nil {
			select {
			case <-after:
			case <-c.life.Done():
				return
			}
		}
		for _, pause := range schedule {
			if sleep(context.Background(), c.life, pause) != nil {
				return
			}
			c.untilDone("find_and_delete", parent, look)
			closeOnce(first)
		}
	})
	if !started {
		close(first)
	}
	return first
}

// findAndDeleteLook returns one look of a find-and-delete.
func findAndDeleteLook(parent string, ids []string, keep map[string]bool) func(conn *zk.Conn) error {
	return func(conn *zk.Conn) error { return findAndDelete(conn, parent, ids, keep) }
}

// findAndDelete deletes the children of parent that carry one of ids and
// are not named in keep.
func findAndDelete(conn *zk.Conn, parent string, ids []string, keep map[string]bool) error {
	children, _, err := conn.Children(parent)
	if isNoNode(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, name := range children {
		if keep[name] || !hasAnyProtectionID(name, ids) {
			continue
		}
		if err := conn.Delete(zkpath.Join(parent, name), -1); err != nil && !isNoNode(err) {
			return err
		}
	}
	return nil
}

func hasAnyProtectionID(name string, ids []string) bool {
	for _, id := range ids {
		if zkpath.HasProtectionID(name, id) {
			return true
		}
	}
	return false
}

// background runs fn with the client's retries until it succeeds, fails
// with an error no retry can cure (logged once), or the client closes,
// starting over after a pause when the retry policy gives up. It first
// waits for after, if given. The returned channel is closed when it ends.
func (c *Client) background(op, path string, after <-chan struct{}, fn func(conn *zk.Conn) error) <-chan struct{} {
	finished := make(chan struct{})
	c.mu.Lock()
	gate := c.seams.deleteGate(op, finished)
	c.mu.Unlock()
	// Ends when fn succeeds or the client closes.
	started := c.spawn(func() {
		defer close(finished)
		for _, wait := range []<-chan struct{}{gate, after} {
			if wait == nil {
				continue
			}
			select {
			case <-wait:
			case <-c.life.Done():
				return
			}
		}
		c.untilDone(op, path, fn)
	})
	if !started {
		close(finished)
	}
	return finished
}

// untilDone is the body of a background operation: it runs fn with the
// client's retries until it succeeds, fails with an error no retry can
// cure (logged once), or the client closes.
func (c *Client) untilDone(op, path string, fn func(conn *zk.Conn) error) {
	for round := 0; ; round++ {
		_, err := retry(c.life, c, op, c.clientPath(path), func(conn *zk.Conn, _ *Session) (struct{}, error) {
			return struct{}{}, fn(conn)
		})
		switch {
		case err == nil || errors.Is(err, ErrClosed) || c.life.Err() != nil:
			return
		case !retryableInBackground(err):
			// Not empty, no permission, and the like: no retry can cure
			// it, so say it once and stop.
			c.log.Warn("background clean-up failed; giving up", "op", op, "path", path, "err", err)
			return
		}
		c.log.Warn("background clean-up failed; will try again", "op", op, "path", path, "err", err)
		if sleepUntil(context.Background(), c.life, backoff(backgroundMinWait, backgroundMaxWait, round), c.reconnected()) != nil {
			return
		}
	}
}

// retryableInBackground reports whether a background clean-up should try
// again after err: the connection's troubles, and an expired session, which
// the client replaces with a new one.
func retryableInBackground(err error) bool {
	return IsRetryable(err) || errors.Is(err, zk.ErrSessionExpired)
}
