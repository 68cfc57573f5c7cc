package framework

import (
	"context"

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
		data, stat, watch, err := conn.GetW(sp)
		return nodeData{data, stat, watch}, err
	})
	return r.data, r.stat, r.watch, err
}

// Set writes data to the node at path if its version matches (-1: any).
func (c *Client) Set(ctx context.Context, path string, data []byte, version int32) (*zk.Stat, error) {
	if err := checkSize(path, data); err != nil {
		return nil, opError("set", path, err)
	}
	return do(ctx, c, "set", path, func(conn *zk.Conn, sp string) (*zk.Stat, error) {
		return conn.Set(sp, data, version)
	})
}

// Delete deletes the node at path if its version matches (-1: any).
func (c *Client) Delete(ctx context.Context, path string, version int32) error {
	_, err := do(ctx, c, "delete", path, func(conn *zk.Conn, sp string) (struct{}, error) {
		return struct{}{}, conn.Delete(sp, version)
	})
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
		ok, stat, watch, err := conn.ExistsW(sp)
		return existence{ok, stat, watch}, err
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
		names, stat, watch, err := conn.ChildrenW(sp)
		return childList{names, stat, watch}, err
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
