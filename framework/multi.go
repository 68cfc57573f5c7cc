package framework

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// Op is one operation of a Multi transaction.
type Op struct {
	kind    opKind
	path    string
	data    []byte
	mode    CreateMode
	version int32
	guard   bool // a GuardOp: its failure is the loss of a hold
}

type opKind int

// MultiOpError is the error of a Multi that the server failed at one of
// its operations: "framework: multi: op 1 (create /a/b): zk: node already
// exists". It wraps the server's error, and for a GuardOp zkrecipes.ErrLost
// too.
type MultiOpError struct {
	Index int    // the operation's place in the transaction, from 0
	Kind  string // create, delete, set, check or guard
	Path  string // the operation's path, relative to the namespace
	Err   error  // the server's error
}

// Error names the operation and says the server's error.
func (e *MultiOpError) Error() string {
	return fmt.Sprintf("op %d (%s %s): %v", e.Index, e.Kind, printablePath(e.Path), e.Err)
}

// Unwrap returns the server's error.
func (e *MultiOpError) Unwrap() error { return e.Err }

// kindName names the operation's kind, for errors.
func (o Op) kindName() string {
	switch {
	case o.guard:
		return "guard"
	case o.kind == opCreate:
		return "create"
	case o.kind == opDelete:
		return "delete"
	case o.kind == opSet:
		return "set"
	case o.kind == opCheck:
		return "check"
	}
	return "op"
}

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

// GuardOp is a CheckOp that stands for a hold on the node at path (see
// the Guard methods of the recipes' holds): it fails the transaction
// unless the node exists at version (-1: at any version). A Multi that it
// fails returns an error that wraps zkrecipes.ErrLost and the server's
// error (zk.ErrNoNode, zk.ErrBadVersion), and names path, so that a
// caller tells a lost hold from a conflict of its own CheckOp.
func GuardOp(path string, version int32) Op {
	return Op{kind: opCheck, path: path, version: version, guard: true}
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

// Multi runs ops as one transaction: all of them or none. When the server
// fails it, the error is a *MultiOpError (errors.As) that names the
// operation it failed at (index, kind, path) and wraps the server's error,
// and the results say the same; failed at a GuardOp, it also wraps
// zkrecipes.ErrLost.
//
// A Multi is never applied twice, and never reported failed after it ran,
// because its answer was lost. After a lost answer it is sent again only
// when it can prove what happened, which takes a transaction whose
// creates are all protected ephemerals (the name's last element starts
// with a protection id, as CreateProtected's do, and the mode is
// ephemeral): the client looks for them by their ids; found, the
// transaction ran, and Multi returns their paths (a set's Stat is then
// nil); not found while the session the lost run was sent in still lives,
// none of it ran, and it is sent again. Any other transaction whose answer
// was lost fails with ErrOutcomeUnknown: read to learn whether it ran.
// That includes one with a plain create; one with a protected persistent
// create, which anyone may delete before the client looks (a consumer of a
// queue), so that its absence proves nothing; and one whose session ended
// before the look, since its ephemerals went with it. With a ctx bound to a session
// (BindSession), a transaction that ran in another session fails with
// ErrSessionChanged, and the nodes it created are deleted, even when ctx
// ended before it answered. A transaction whose ctx ends before it was
// sent (the client waiting for a connection) fails with ctx's error alone.
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
	if err := ctx.Err(); err != nil {
		return nil, 0, opError("multi", "", err) // nothing sent
	}
	t := newTransaction(c, ops, reqs)
	resps, finished, abandoned, err := answerOrAbandon(ctx, func() ([]zk.MultiResponse, error) { return t.run(ctx) })
	sent = int(t.runs.Load())
	if abandoned && t.withhold() {
		return nil, 0, opError("multi", "", err) // ctx ended before a run was sent
	}
	if abandoned {
		// ctx ended with a run on its way: it may still be applied.
		if len(t.creates) > 0 {
			t.sweep(nil, err, finished) // delete what it makes, once it has
		}
		if t.writes {
			err = fmt.Errorf("%w: %w", ErrOutcomeUnknown, err)
		}
		return nil, sent, opError("multi", "", err)
	}
	if t.lost != nil && len(t.creates) > 0 {
		t.sweep(resps, err, nil)
	}
	if err = t.outcome(ctx, err); resps == nil || errors.Is(err, ErrSessionChanged) {
		return nil, sent, err // what it made in another session is being deleted
	}
	results = make([]OpResult, len(resps))
	for i, r := range resps {
		results[i] = OpResult{Stat: r.Stat, Err: r.Error}
		if ops[i].kind == opCreate && r.Error == nil {
			results[i].Path = c.clientPath(r.String)
		}
	}
	return results, sent, failedOp(ops, results, err)
}

// failedOp names, in the error of a transaction that the server failed,
// the operation it failed at (see MultiOpError); failed at a GuardOp, the
// error is the loss of the hold it stands for. Only the failing operation
// has an error of its own: those before it have none, those after it the
// server's "runtime inconsistency".
func failedOp(ops []Op, results []OpResult, err error) error {
	if err == nil {
		return nil
	}
	for i, r := range results {
		if r.Err == nil {
			continue
		}
		cause := r.Err
		if ops[i].guard {
			cause = fmt.Errorf("%w: %w", zkrecipes.ErrLost, r.Err)
		}
		return opError("multi", "", &MultiOpError{Index: i, Kind: ops[i].kindName(), Path: ops[i].path, Err: cause})
	}
	return err
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
