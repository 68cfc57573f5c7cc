package framework

import (
	"context"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// nodeData is what a read of one node returns.
type nodeData struct {
	data  []byte
	stat  *zk.Stat
	watch <-chan zk.Event
}

// childList is what a read of a node's children returns.
type childList struct {
	names []string
	stat  *zk.Stat
	watch <-chan zk.Event
}

// existence is what an exists call returns.
type existence struct {
	ok    bool
	stat  *zk.Stat
	watch <-chan zk.Event
}

// Get returns the data and stat of the node at path.
func (c *Client) Get(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	r, err := do(ctx, c, "get", path, func(conn *zk.Conn, sp string) (nodeData, error) {
		data, stat, err := conn.Get(sp)
		return nodeData{data: data, stat: stat}, err
	})
	return r.data, r.stat, err
}

// GetW is Get that also sets a watch, whose channel receives one event
// when the node changes or is deleted, or when the session ends.
func (c *Client) GetW(ctx context.Context, path string) ([]byte, *zk.Stat, <-chan zk.Event, error) {
	r, err := do(ctx, c, "get", path, func(conn *zk.Conn, sp string) (nodeData, error) {
		return c.getW(conn, sp)
	})
	return r.data, r.stat, r.watch, err
}

// Set writes data to the node at path if its version matches (-1: any).
//
// A set whose answer was lost is sent again. If the retry succeeds, the
// lost one was not applied (for version -1, the data is the same either
// way). If it fails with zk.ErrBadVersion or zk.ErrNoNode, which the lost
// set's own success would explain, Set returns ErrOutcomeUnknown, never
// the server's verdict: the set ran once or not at all, and the caller
// reads the node to learn which (for a missing node the error also wraps
// zk.ErrNoNode: it is gone either way). With UniqueData, finding the data there
// proves it ran, and Set returns the node's stat. A set that gives up
// after a lost answer (retries exhausted, ctx ended) also returns
// ErrOutcomeUnknown, wrapping the cause.
func (c *Client) Set(ctx context.Context, path string, data []byte, version int32, opts ...WriteOption) (*zk.Stat, error) {
	var cfg writeConfig
	for _, o := range opts {
		if o == nil {
			return nil, opError("set", path, fmt.Errorf("%w: nil write option", ErrInvalidOption))
		}
		o(&cfg)
	}
	if err := checkSize(path, data); err != nil {
		return nil, opError("set", path, err)
	}
	sp, err := c.serverPath(path)
	if err != nil {
		return nil, opError("set", path, err)
	}
	return retryWrite(ctx, c, "set", path, func(conn *zk.Conn, _ *Session) (*zk.Stat, error) {
		return conn.Set(sp, data, version)
	}, setVerdict(sp, data, cfg.unique))
}

// Delete deletes the node at path if its version matches (-1: any).
//
// A delete whose answer was lost is sent again. If the retry finds the
// node missing (or, for a version, at another version), which the lost
// delete's own success would explain, Delete returns ErrOutcomeUnknown;
// for version -1 that error also wraps zk.ErrNoNode, since the node is
// gone either way. A delete that gives up after a lost answer returns
// ErrOutcomeUnknown, wrapping the cause.
func (c *Client) Delete(ctx context.Context, path string, version int32) error {
	sp, err := c.serverPath(path)
	if err != nil {
		return opError("delete", path, err)
	}
	_, err = retryWrite(ctx, c, "delete", path, func(conn *zk.Conn, _ *Session) (struct{}, error) {
		return struct{}{}, conn.Delete(sp, version)
	}, deleteVerdict(version))
	return err
}

// Exists reports whether the node at path exists, and its stat if so.
func (c *Client) Exists(ctx context.Context, path string) (bool, *zk.Stat, error) {
	r, err := do(ctx, c, "exists", path, func(conn *zk.Conn, sp string) (existence, error) {
		ok, stat, err := conn.Exists(sp)
		return existence{ok: ok, stat: stat}, err
	})
	return r.ok, r.stat, err
}

// ExistsW is Exists that also sets a watch for the node's creation,
// change or deletion. Prefer GetW to watch a node that should exist: a
// watch left on a missing node waits for its creation, possibly forever.
func (c *Client) ExistsW(ctx context.Context, path string) (bool, *zk.Stat, <-chan zk.Event, error) {
	r, err := do(ctx, c, "exists", path, func(conn *zk.Conn, sp string) (existence, error) {
		return c.existsW(conn, sp)
	})
	return r.ok, r.stat, r.watch, err
}

// Children returns the names of the children of path, in the server's
// order.
func (c *Client) Children(ctx context.Context, path string) ([]string, *zk.Stat, error) {
	r, err := do(ctx, c, "children", path, func(conn *zk.Conn, sp string) (childList, error) {
		names, stat, err := conn.Children(sp)
		return childList{names: names, stat: stat}, err
	})
	return r.names, r.stat, err
}

// ChildrenW is Children that also sets a watch for a change of the list.
func (c *Client) ChildrenW(ctx context.Context, path string) ([]string, *zk.Stat, <-chan zk.Event, error) {
	r, err := do(ctx, c, "children", path, func(conn *zk.Conn, sp string) (childList, error) {
		return c.childrenW(conn, sp)
	})
	return r.names, r.stat, r.watch, err
}

// Sync asks the server the client is connected to to catch up with the
// leader, so that a following read sees every write committed before it.
func (c *Client) Sync(ctx context.Context, path string) error {
	_, err := do(ctx, c, "sync", path, func(conn *zk.Conn, sp string) (string, error) {
		return conn.Sync(sp)
	})
	return err
}

// do validates path, applies the namespace and runs call with retries.
func do[T any](ctx context.Context, c *Client, op, path string, call func(conn *zk.Conn, serverPath string) (T, error)) (T, error) {
	sp, err := c.serverPath(path)
	if err != nil {
		var zero T
		return zero, opError(op, path, err)
	}
	return retry(ctx, c, op, path, func(conn *zk.Conn, _ *Session) (T, error) {
		return call(conn, sp)
	})
}
