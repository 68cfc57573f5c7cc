package wire

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
)

// WriteTap tells a caller when the create request for a path has been
// written to the server connection. go-zookeeper has no asynchronous
// calls, but the server answers a session's requests in the order they
// arrive: a request sent once the create is on the wire is seen after it,
// and both are answered in one round trip.
type WriteTap struct {
	waiting atomic.Int32 // len(creates), read without the lock on every write
	mu      sync.Mutex
	creates map[string]chan struct{} // by server path
}

// NewWriteTap returns a tap that expects no create.
func NewWriteTap() *WriteTap { return &WriteTap{creates: make(map[string]chan struct{})} }

// expectation is a caller's interest in the create of one path.
type expectation struct {
	tap     *WriteTap
	path    string
	Written chan struct{} // closed once the create has been written
}

// Expect registers an interest in the create of path: its written channel
// is closed once the create is on the wire; stop ends the interest. A value,
// not a closure, so that it costs no allocation of its own.
func (t *WriteTap) Expect(path string) expectation {
	e := expectation{tap: t, path: path, Written: make(chan struct{})}
	t.mu.Lock()
	t.creates[path] = e.Written
	t.waiting.Store(int32(len(t.creates)))
	t.mu.Unlock()
	return e
}

// Stop removes the expectation unless its create was written meanwhile.
func (e expectation) Stop() {
	t := e.tap
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.creates[e.path] == e.Written {
		delete(t.creates, e.path)
		t.waiting.Store(int32(len(t.creates)))
	}
}

// wrote is shown every request frame written to a server connection.
func (t *WriteTap) wrote(frame []byte) {
	if t.waiting.Load() == 0 {
		return
	}
	path, ok := createdPath(frame)
	if !ok {
		return
	}
	t.mu.Lock()
	ch, found := t.creates[string(path)] // the compiler copies nothing here
	if found {
		delete(t.creates, string(path))
		t.waiting.Store(int32(len(t.creates)))
	}
	t.mu.Unlock()
	if found {
		close(ch)
	}
}

// Opcodes of the requests that create a node (ZooKeeper's ZooDefs.OpCode).
const (
	wireCreate          = 1
	wireCreate2         = 15
	wireCreateContainer = 19
	wireCreateTTL       = 21
)

// createdPath reads the path of a create request frame.
func createdPath(frame []byte) ([]byte, bool) {
	op, path, ok := requestPath(frame)
	if isCreate(op) {
		return path, ok
	}
	return nil, false
}

// isCreate tells whether op is one of the requests that create a node.
func isCreate(op uint32) bool {
	switch op {
	case wireCreate, wireCreate2, wireCreateContainer, wireCreateTTL:
		return true
	}
	return false
}

// requestPath reads the opcode of a request frame and, for a request that
// starts with a path, the path: its length, xid and opcode, each 4 bytes,
// then the path as a length-prefixed string. ok is false for a frame too
// short to hold them.
func requestPath(frame []byte) (op uint32, path []byte, ok bool) {
	if len(frame) < 16 {
		return 0, nil, false
	}
	op = binary.BigEndian.Uint32(frame[8:12])
	n := int(int32(binary.BigEndian.Uint32(frame[12:16])))
	if n < 0 || n > len(frame)-16 {
		return op, nil, false
	}
	return op, frame[16 : 16+n], true
}
