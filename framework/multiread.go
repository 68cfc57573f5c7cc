package framework

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// ReadOp is one read of a MultiRead: GetOp or ChildrenOp.
type ReadOp struct {
	opcode int32 // getData or getChildren
	path   string
}

// Opcodes of the reads a multiRead holds.
const (
	opGetChildren = 8
	opErrorResult = -1 // a multi reply's result that is an error
)

// GetOp reads the data and stat of the node at path, as Client.Get does.
func GetOp(path string) ReadOp { return ReadOp{opcode: wire.OpGetData, path: path} }

// ChildrenOp lists the children of the node at path, as Client.Children
// does, without a stat (multiRead's listing has none).
func ChildrenOp(path string) ReadOp { return ReadOp{opcode: opGetChildren, path: path} }

// ReadResult is the result of one ReadOp: Data and Stat for a GetOp,
// Children for a ChildrenOp, or Err (wrapping go-zookeeper's error, such
// as zk.ErrNoNode) for a read that failed on its own.
type ReadResult struct {
	Data     []byte
	Stat     *zk.Stat
	Children []string
	Err      error
}

// MultiRead runs reads in one request and one round trip (ZooKeeper
// 3.6's multiRead). Each read succeeds or fails on its own: a missing
// node fails its read, not the others; the error is for the request as a
// whole (the connection, the context, a bad path). The reads are not a
// snapshot: another client's write may fall between two of them. A server
// without multiRead gets the reads one by one, sent together: the same
// results, as many requests as reads, still one round trip.
func (c *Client) MultiRead(ctx context.Context, ops ...ReadOp) ([]ReadResult, error) {
	if len(ops) == 0 {
		return nil, nil
	}
	paths := make([]string, len(ops))
	for i, op := range ops {
		if op.opcode != wire.OpGetData && op.opcode != opGetChildren {
			return nil, opError("multi_read", op.path, fmt.Errorf("%w: the zero ReadOp", ErrInvalidArgument))
		}
		sp, err := c.serverPath(op.path)
		if err != nil {
			return nil, opError("multi_read", op.path, err)
		}
		paths[i] = sp
	}
	var w wire.JuteWriter
	for i, op := range ops {
		w.Int32(op.opcode)
		w.Bool(false)
		w.Int32(-1)
		w.String(paths[i])
		w.Bool(false) // no watch
	}
	w.Int32(-1)
	w.Bool(true)
	w.Int32(-1)
	return retry(ctx, c, "multi_read", ops[0].path, func(conn *zk.Conn, _ *Session) ([]ReadResult, error) {
		body, err := c.carryReply(conn, &wire.Carried{Opcode: wire.OpMultiRead, Body: w.B})
		if err == wire.ErrUnimplemented {
			return readEach(conn, paths, ops)
		}
		if err != nil {
			return nil, err
		}
		return parseMultiRead(body, len(ops))
	})
}

// parseMultiRead reads a multiRead reply of n results.
func parseMultiRead(body []byte, n int) ([]ReadResult, error) {
	r := wire.JuteReader{B: body}
	results := make([]ReadResult, 0, n)
	for {
		typ, done, _ := r.Int32(), r.Bool(), r.Int32() // the header's error comes again in the body
		if r.Err != nil {
			return nil, r.Err
		}
		if done {
			break
		}
		var res ReadResult
		switch typ {
		case wire.OpGetData:
			res.Data, res.Stat = r.Buffer(), r.Stat()
		case opGetChildren:
			res.Children = r.Strings()
			if res.Children == nil {
				res.Children = []string{}
			}
		case opErrorResult:
			res.Err = wire.CodeError(r.Int32())
		default:
			return nil, fmt.Errorf("%w: a multi read result of type %d", wire.ErrJute, typ)
		}
		if r.Err != nil {
			return nil, r.Err
		}
		results = append(results, res)
	}
	if len(results) != n {
		return nil, fmt.Errorf("%w: %d results for %d reads", wire.ErrJute, len(results), n)
	}
	return results, nil
}

// readEach is MultiRead for a server without multiRead: one read per op,
// all sent before the first answer is awaited.
func readEach(conn *zk.Conn, paths []string, ops []ReadOp) ([]ReadResult, error) {
	results := make([]ReadResult, len(ops))
	var wg sync.WaitGroup
	for i, op := range ops {
		wg.Go(func() { // ends with go-zookeeper's answer or its connection
			res := &results[i]
			if op.opcode == wire.OpGetData {
				res.Data, res.Stat, res.Err = conn.Get(paths[i])
			} else {
				res.Children, _, res.Err = conn.Children(paths[i])
			}
			if res.Err != nil {
				res.Data, res.Stat, res.Children = nil, nil, nil
			}
		})
	}
	wg.Wait()
	for _, res := range results {
		if IsRetryable(res.Err) {
			return nil, res.Err // the connection failed, not the read
		}
	}
	return results, nil
}
