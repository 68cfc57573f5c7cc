package framework

import (
	"errors"

	"github.com/go-zookeeper/zk"
)

// The one-shot watches of GetW, ExistsW and ChildrenW are the client's,
// not go-zookeeper's: the reads go through the carrier with the watch
// flag set, and the watch is registered in the client's table as the
// reply is read, before any later packet. go-zookeeper's own watcher
// table stays empty, which keeps its reconnect from reading the zxid its
// receive goroutine writes (a data race in go-zookeeper v1.0.4), and lets
// the client set every watch again after a reconnect with setWatches2.

// getW reads the node at sp and sets a data watch.
func (c *Client) getW(conn *zk.Conn, sp string) (nodeData, error) {
	var r nodeData
	body, err := c.carryReply(conn, watchedRead(opGetData, sp, func(code int32) {
		if code == codeOK {
			r.watch = c.watches.addOneShot(sp, watchData)
		}
	}))
	if err != nil {
		return nodeData{}, err
	}
	jr := juteReader{b: body}
	r.data, r.stat = jr.buffer(), jr.stat()
	return r, jr.err
}

// existsW tells whether the node at sp exists and sets a watch: of its
// data if it does, of its creation if not.
func (c *Client) existsW(conn *zk.Conn, sp string) (existence, error) {
	var r existence
	body, err := c.carryReply(conn, watchedRead(opExists, sp, func(code int32) {
		switch code {
		case codeOK:
			r.watch = c.watches.addOneShot(sp, watchData)
		case codeNoNode:
			r.watch = c.watches.addOneShot(sp, watchExist)
		}
	}))
	if errors.Is(err, zk.ErrNoNode) {
		return r, nil
	}
	if err != nil {
		return existence{}, err
	}
	jr := juteReader{b: body}
	r.ok, r.stat = true, jr.stat()
	return r, jr.err
}

// childrenW lists the children of sp and sets a watch of the list.
func (c *Client) childrenW(conn *zk.Conn, sp string) (childList, error) {
	var r childList
	body, err := c.carryReply(conn, watchedRead(opGetChildren2, sp, func(code int32) {
		if code == codeOK {
			r.watch = c.watches.addOneShot(sp, watchChild)
		}
	}))
	if err != nil {
		return childList{}, err
	}
	jr := juteReader{b: body}
	r.names, r.stat = jr.strings(), jr.stat()
	if r.names == nil && jr.err == nil {
		r.names = []string{}
	}
	return r, jr.err
}

// watchedRead is a read of path with the watch flag set; registered is
// told the reply's code on the receive goroutine.
func watchedRead(opcode int32, path string, registered func(code int32)) *carried {
	var w juteWriter
	w.string(path)
	w.bool(true)
	return &carried{opcode: opcode, body: w.b, onReply: func(code int32, _ []byte) { registered(code) }}
}
