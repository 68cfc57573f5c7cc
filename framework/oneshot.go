package framework

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework/internal/watches"
	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// The one-shot watches of GetW, ExistsW and ChildrenW are the client's,
// not go-zookeeper's: the reads go through the carrier with the watch
// flag set, and the watch is registered in the client's table as the
// reply is read, before any later packet. go-zookeeper's own watcher
// table stays empty, which keeps its reconnect from reading the zxid its
// receive goroutine writes (a data race in go-zookeeper v1.0.4), and lets
// the client set every watch again after a reconnect with setWatches2.
// Where a persistent or recursive watch of the client's brings a
// one-shot watch's events already, the read goes without the watch flag,
// which would replace that watch on ZooKeeper 3.6 to 3.8: the flag is
// decided as the read is written (see internal/watches/servermodes.go).

// getW reads the node at sp and sets a data watch.
func (c *Client) getW(conn *zk.Conn, sp string) (nodeData, error) {
	var r nodeData
	body, err := c.carryReply(conn, c.watchedRead(wire.OpGetData, sp, false, func(code int32) {
		if code == wire.CodeOK {
			r.watch = c.watches.AddOneShot(sp, watches.DataWatch)
		}
	}))
	if err != nil {
		return nodeData{}, err
	}
	jr := wire.JuteReader{B: body}
	r.data, r.stat = jr.Buffer(), jr.Stat()
	return r, jr.Err
}

// existsW tells whether the node at sp exists and sets a watch: of its
// data if it does, of its creation if not.
func (c *Client) existsW(conn *zk.Conn, sp string) (existence, error) {
	var r existence
	body, err := c.carryReply(conn, c.watchedRead(wire.OpExists, sp, false, func(code int32) {
		switch code {
		case wire.CodeOK:
			r.watch = c.watches.AddOneShot(sp, watches.DataWatch)
		case wire.CodeNoNode:
			r.watch = c.watches.AddOneShot(sp, watches.ExistWatch)
		}
	}))
	if errors.Is(err, zk.ErrNoNode) {
		return r, nil
	}
	if err != nil {
		return existence{}, err
	}
	jr := wire.JuteReader{B: body}
	r.ok, r.stat = true, jr.Stat()
	return r, jr.Err
}

// childrenW lists the children of sp and sets a watch of the list.
func (c *Client) childrenW(conn *zk.Conn, sp string) (childList, error) {
	var r childList
	body, err := c.carryReply(conn, c.watchedRead(wire.OpGetChildren2, sp, true, func(code int32) {
		if code == wire.CodeOK {
			r.watch = c.watches.AddOneShot(sp, watches.ChildWatch)
		}
	}))
	if err != nil {
		return childList{}, err
	}
	jr := wire.JuteReader{B: body}
	r.names, r.stat = jr.Strings(), jr.Stat()
	if r.names == nil && jr.Err == nil {
		r.names = []string{}
	}
	return r, jr.Err
}

// watchedRead is a read of path that sets a one-shot watch, of the child
// manager or the data one; registered is told the reply's code on the
// receive goroutine, and registers the watch.
func (c *Client) watchedRead(opcode int32, path string, child bool, registered func(code int32)) *wire.Carried {
	var watched bool
	return &wire.Carried{
		Opcode: opcode,
		Prepare: func(req *wire.Carried) {
			var w wire.JuteWriter
			w.String(path)
			watched = c.watches.WriteRead(path, child)
			w.Bool(watched)
			req.Body = w.B
		},
		OnReply: func(code int32, _ int64, _ []byte) {
			registered(code)
			c.watches.ReadAnswered(path, child)
			if watched && !child {
				c.watches.Applied(path, false) // a one-shot watch replaced any mode
			}
		},
	}
}

// setChildWatchesAgain sets on the server the child one-shot watches of
// path that a recursive mode displaced there (see
// internal/watches/servermodes.go), and fires those whose children changed after zxid, when the mode was set:
// the recursive watch told such a change as the child's creation or
// deletion only. It runs on a goroutine of its own, which ends with the
// read; a read that fails leaves them to the next connection's restore.
func (c *Client) setChildWatchesAgain(path string, zxid int64, displaced []chan zk.Event) {
	c.spawn(func() {
		ctx, cancel := context.WithTimeout(c.life, c.cfg.connectionTimeout)
		defer cancel()
		p := c.clientPath(path)
		_, err := retry(ctx, c, "children", p, func(conn *zk.Conn, _ *Session) (struct{}, error) {
			read := c.watchedRead(wire.OpGetChildren2, path, true, nil)
			read.OnReply = func(code int32, _ int64, body []byte) {
				c.watches.FireDisplaced(path, displaced, zxid, code, body)
				c.watches.ReadAnswered(path, true)
			}
			return struct{}{}, ignoreNoNode(c.carry(conn, read))
		})
		if err != nil {
			c.log.Debug("setting child watches again failed; the next connection sets them", "path", p, "err", err)
		}
	})
}

// ignoreNoNode drops the server's "no node": an answer all the same.
func ignoreNoNode(err error) error {
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	return err
}
