package framework

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// Op is one operation of a Multi transaction.
type Op struct {
	kind    opKind
	path    string
	data    []byte
	mode    CreateMode
	version int32
}

type opKind int

const (
	opCreate opKind = iota + 1
	opDelete
	opSet
	opCheck
)

// CreateOp creates a node. Containers and TTL modes cannot be part of a
// transaction.
func CreateOp(path string, data []byte, mode CreateMode) Op {
	return Op{kind: opCreate, path: path, data: data, mode: mode}
}

// DeleteOp deletes a node if its version matches (-1: any).
func DeleteOp(path string, version int32) Op {
	return Op{kind: opDelete, path: path, version: version}
}

// SetOp writes a node's data if its version matches (-1: any).
func SetOp(path string, data []byte, version int32) Op {
	return Op{kind: opSet, path: path, data: data, version: version}
}

// CheckOp fails the transaction unless the node's version matches.
func CheckOp(path string, version int32) Op {
	return Op{kind: opCheck, path: path, version: version}
}

// OpResult is the outcome of one operation of a Multi.
type OpResult struct {
	// Path is the created node's path (relative to the namespace) for a
	// create, "" otherwise.
	Path string
	// Stat is the node's new stat for a set.
	Stat *zk.Stat
	// Err is the operation's error when the transaction failed.
	Err error
}

// Multi runs ops as one transaction: all of them or none. When it fails,
// the error wraps the first failing operation's error and the results say
// which operation failed. A Multi whose answer is lost is retried like any
// call, so a transaction of creates may then fail with zk.ErrNodeExists or,
// for sequential creates, run twice: build such transactions to be
// recognisable, as the semaphore does with protection ids, and use
// Hooks.MultiSent to learn whether that can have happened. With a ctx bound
// to a session (BindSession), a transaction that ran in another session
// fails with ErrSessionChanged, and the nodes it created are deleted.
func (c *Client) Multi(ctx context.Context, ops ...Op) ([]OpResult, error) {
	results, _, err := c.multiSent(ctx, ops...)
	return results, err
}

// multiSent is Hooks.MultiSent.
func (c *Client) multiSent(ctx context.Context, ops ...Op) (results []OpResult, sent int, err error) {
	reqs, err := c.multiRequests(ops)
	if err != nil {
		return nil, 0, opError("multi", "", err)
	}
	var runs atomic.Int32
	resps, err := retry(ctx, c, "multi", "", func(conn *zk.Conn, _ *Session) ([]zk.MultiResponse, error) {
		runs.Add(1)
		return conn.Multi(reqs...)
	})
	sent = int(runs.Load())
	if resps == nil {
		return nil, sent, err
	}
	if errors.Is(err, ErrSessionChanged) {
		// It ran in a session other than the bound one: what it created
		// belongs to nobody who knows of it.
		for i, r := range resps {
			if ops[i].kind == opCreate && r.Error == nil && r.String != "" {
				c.deleteInBackground(r.String)
			}
		}
		return nil, sent, err
	}
	results = make([]OpResult, len(resps))
	for i, r := range resps {
		results[i] = OpResult{Stat: r.Stat, Err: r.Error}
		if ops[i].kind == opCreate && r.Error == nil {
			results[i].Path = c.clientPath(r.String)
		}
	}
	return results, sent, err
}

func (c *Client) multiRequests(ops []Op) ([]any, error) {
	if len(ops) == 0 {
		return nil, fmt.Errorf("%w: empty transaction", ErrInvalidOption)
	}
	reqs := make([]any, len(ops))
	size := 0
	for i, op := range ops {
		validate := zkpath.Validate
		if op.kind == opCreate && op.mode.IsSequential() {
			validate = zkpath.ValidateSequential
		}
		if err := validate(op.path); err != nil {
			return nil, err
		}
		if size += len(op.path) + len(op.data); size > MaxRequestSize {
			return nil, fmt.Errorf("%w: %d bytes", ErrTooLarge, size)
		}
		sp := c.withNamespace(op.path)
		switch op.kind {
		case opCreate:
			if !op.mode.valid() || op.mode == Container || op.mode.isTTL() {
				return nil, fmt.Errorf("%w: mode %v in a transaction", ErrInvalidOption, op.mode)
			}
			reqs[i] = &zk.CreateRequest{Path: sp, Data: op.data, Acl: c.cfg.acl.ACL(sp), Flags: op.mode.flags()}
		case opDelete:
			reqs[i] = &zk.DeleteRequest{Path: sp, Version: op.version}
		case opSet:
			reqs[i] = &zk.SetDataRequest{Path: sp, Data: op.data, Version: op.version}
		case opCheck:
			reqs[i] = &zk.CheckVersionRequest{Path: sp, Version: op.version}
		default:
			return nil, fmt.Errorf("%w: zero Op", ErrInvalidOption)
		}
	}
	return reqs, nil
}
