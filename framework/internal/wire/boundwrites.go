package wire

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
)

// BoundWrites is the client's table of writes bound to a session that are
// on their way: the server path each writes (a transaction's first op's),
// and the session it is bound to. A request go-zookeeper queued while the
// connection was in that session may be written on the next connection,
// in a new session, after every check the client can make; the connection
// wrapper, which knows its connection's session, refuses it there instead
// (see tappedConn.Write). The table tells a request by its path alone: a
// write of the same path, unbound or of the new session, that is written
// while such a request is on its way is refused with it, as a request of a
// session that has moved (retryable, not applied). A nil table refuses
// nothing.
type BoundWrites struct {
	waiting atomic.Int32 // len(paths), read without the lock on every write
	mu      sync.Mutex
	paths   map[string][]int64 // by server path: the sessions of the writes on their way
}

// boundWrite is one write in the table, to remove once its call returns.
type boundWrite struct {
	table   *BoundWrites
	path    string
	session int64
}

// Add records a write of path bound to session.
func (b *BoundWrites) Add(path string, session int64) boundWrite {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.paths == nil {
		b.paths = make(map[string][]int64)
	}
	b.paths[path] = append(b.paths[path], session)
	b.waiting.Store(int32(len(b.paths)))
	return boundWrite{table: b, path: path, session: session}
}

// Done removes the write: its call has returned, so go-zookeeper holds its
// request no more.
func (w boundWrite) Done() {
	b := w.table
	b.mu.Lock()
	defer b.mu.Unlock()
	sessions := b.paths[w.path]
	for i, s := range sessions {
		if s == w.session {
			sessions = append(sessions[:i], sessions[i+1:]...)
			break
		}
	}
	if len(sessions) == 0 {
		delete(b.paths, w.path)
	} else {
		b.paths[w.path] = sessions
	}
	b.waiting.Store(int32(len(b.paths)))
}

// refuses reports whether the request frame must not be written on a
// connection in session: it writes a path that a write bound to another
// session is on its way to.
func (b *BoundWrites) refuses(frame []byte, session int64) bool {
	if b == nil || b.waiting.Load() == 0 {
		return false
	}
	path, ok := writtenPath(frame)
	if !ok {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.paths[string(path)] {
		if s != session {
			return true
		}
	}
	return false
}

// Opcodes of the other writes (ZooKeeper's ZooDefs.OpCode).
const (
	wireDelete  = 2
	wireSetData = 5
	wireSetACL  = 7
	wireMulti   = 14
)

// writtenPath reads the path a write request frame writes: a
// transaction's first op's. ok is false for a read, or a frame too short.
func writtenPath(frame []byte) ([]byte, bool) {
	op, path, ok := requestPath(frame)
	switch {
	case isCreate(op), op == wireDelete, op == wireSetData, op == wireSetACL:
		return path, ok
	case op == wireMulti:
		// The multi header (type 4 bytes, done 1, error 4) comes before
		// the first op, which starts with its path.
		if len(frame) < 12+9 {
			return nil, false
		}
		_, path, ok := requestPath(frame[9:])
		return path, ok
	}
	return nil, false
}

// refusedPath is read in place of a refused request: under /zookeeper,
// where no client can create a node, so the server answers NoNode.
const refusedPath = "/zookeeper/zkrecipes_refused"

// refusal stands, in a connection's table of carried requests, for a
// refused request: its reply is rewritten by refusedReply.
var refusal = &Carried{}

// refusedFrame is the request written in place of a refused one: a
// getData of refusedPath under the same xid, so that go-zookeeper gets an
// answer in order and the server applies nothing.
func refusedFrame(request []byte) []byte {
	frame := make([]byte, 16, 16+len(refusedPath)+1)
	binary.BigEndian.PutUint32(frame[0:4], uint32(12+len(refusedPath)+1))
	copy(frame[4:8], request[4:8])
	binary.BigEndian.PutUint32(frame[8:12], OpGetData)
	binary.BigEndian.PutUint32(frame[12:16], uint32(len(refusedPath)))
	frame = append(frame, refusedPath...)
	return append(frame, 0) // no watch
}

// codeSessionMoved is ZooKeeper's SESSIONMOVED, which go-zookeeper reports
// as zk.ErrSessionMoved: the server did not apply the request.
const codeSessionMoved = -118

// refusedReply turns the reply to a refused request's stand-in into a
// reply without a body and with the error SESSIONMOVED: what a request of
// a session that has moved elsewhere gets, not applied and retryable.
func refusedReply(packet []byte) []byte {
	out := make([]byte, 4+16)
	binary.BigEndian.PutUint32(out[0:4], 16)
	copy(out[4:16], packet[4:16]) // xid, zxid
	code := int32(codeSessionMoved)
	binary.BigEndian.PutUint32(out[16:20], uint32(code))
	return out
}
