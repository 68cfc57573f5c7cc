package framework

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
)

// writeTap tells a caller when the create request for a path has been
// written to the server connection. go-zookeeper has no asynchronous
// calls, but the server answers a session's requests in the order they
// arrive: a request sent once the create is on the wire is seen after it,
// and both are answered in one round trip.
type writeTap struct {
	waiting atomic.Int32 // len(creates), read without the lock on every write
	mu      sync.Mutex
	creates map[string]chan struct{} // by server path
}

func newWriteTap() *writeTap { return &writeTap{creates: make(map[string]chan struct{})} }

// expect returns a channel closed once a create of path has been written,
// and a function to call when no longer interested.
func (t *writeTap) expect(path string) (written <-chan struct{}, stop func()) {
	ch := make(chan struct{})
	t.mu.Lock()
	t.creates[path] = ch
	t.waiting.Store(int32(len(t.creates)))
	t.mu.Unlock()
	return ch, func() { t.forget(path, ch) }
}

// forget removes path's entry if it is still ch, and reports whether it was.
func (t *writeTap) forget(path string, ch chan struct{}) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.creates[path] != ch {
		return false
	}
	delete(t.creates, path)
	t.waiting.Store(int32(len(t.creates)))
	return true
}

// wrote is shown every request frame written to a server connection.
func (t *writeTap) wrote(frame []byte) {
	if t.waiting.Load() == 0 {
		return
	}
	path, ok := createdPath(frame)
	if !ok {
		return
	}
	t.mu.Lock()
	ch := t.creates[string(path)]
	t.mu.Unlock()
	if ch != nil && t.forget(string(path), ch) {
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
	switch op {
	case wireCreate, wireCreate2, wireCreateContainer, wireCreateTTL:
		return path, ok
	}
	return nil, false
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
