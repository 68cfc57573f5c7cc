package zktest

import (
	"encoding/binary"
	"fmt"
	"io"
)

// maxFrame bounds a packet the proxy accepts: ZooKeeper's default
// jute.maxbuffer is 1 MiB, and a multi may carry several such payloads.
const maxFrame = 64 << 20

// ZooKeeper request types (opcodes) that the proxy looks at.
const (
	opPing            = 11
	opCreate          = 1
	opDelete          = 2
	opSetData         = 5
	opCheck           = 13
	opMulti           = 14
	opCreate2         = 15
	opCreateContainer = 19
	opCreateTTL       = 21
	opSetAuth         = 100
)

// authXid is the xid of an auth packet's reply.
const authXid = -4

// readFrame reads one packet, a 4-byte big-endian length and that many bytes,
// and returns it whole, length included, ready to forward.
func readFrame(r io.Reader) ([]byte, error) {
	var length [4]byte
	if _, err := io.ReadFull(r, length[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(length[:]))
	if n < 0 || n > maxFrame {
		return nil, fmt.Errorf("zktest: bad packet length %d", n)
	}
	frame := make([]byte, 4+int(n))
	copy(frame, length[:])
	if _, err := io.ReadFull(r, frame[4:]); err != nil {
		return nil, err
	}
	return frame, nil
}

// requestHeader returns the xid and type of a client request frame (any
// but the first of a connection, the ConnectRequest, which has no header).
func requestHeader(frame []byte) (xid, op int32, ok bool) {
	if len(frame) < 12 {
		return 0, 0, false
	}
	return int32(binary.BigEndian.Uint32(frame[4:])), int32(binary.BigEndian.Uint32(frame[8:])), true
}

// replyXid returns the xid of a server reply frame (any but the first of a
// connection, the ConnectResponse). It is -1 for a watch event and -2 for a
// ping.
func replyXid(frame []byte) (int32, bool) {
	if len(frame) < 8 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(frame[4:])), true
}

// createsNode tells whether a client request frame creates a node: create,
// create2, createContainer, createTTL, or a multi holding one of them.
func createsNode(frame []byte) bool {
	_, op, ok := requestHeader(frame)
	switch {
	case !ok:
		return false
	case isCreate(op):
		return true
	case op == opMulti:
		return multiCreates(&jute{b: frame[12:]})
	default:
		return false
	}
}

// isCreate tells whether op is one of the create requests.
func isCreate(op int32) bool {
	return op == opCreate || op == opCreate2 || op == opCreateContainer || op == opCreateTTL
}

// multiCreates walks the operations of a multi request, each a MultiHeader
// {type int32, done bool, err int32} and its request, and tells whether one
// of them is a create. It stops at an operation it cannot skip.
func multiCreates(r *jute) bool {
	for {
		op, done := r.int32(), r.bool()
		r.int32() // err
		switch {
		case r.failed || done:
			return false
		case isCreate(op):
			return true
		case op == opDelete || op == opCheck:
			r.buffer() // path
			r.int32()  // version
		case op == opSetData:
			r.buffer() // path
			r.buffer() // data
			r.int32()  // version
		default:
			return false
		}
	}
}

// jute reads ZooKeeper's jute encoding; a read past the end sets failed and
// returns zero values.
type jute struct {
	b      []byte
	failed bool
}

// take returns the next n bytes.
func (r *jute) take(n int) []byte {
	if r.failed || n < 0 || n > len(r.b) {
		r.failed = true
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

// int32 reads a big-endian int32.
func (r *jute) int32() int32 {
	b := r.take(4)
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

// bool reads a one-byte boolean.
func (r *jute) bool() bool {
	b := r.take(1)
	return b != nil && b[0] != 0
}

// buffer skips a length-prefixed string or buffer (length -1 is null).
func (r *jute) buffer() {
	if n := r.int32(); n > 0 {
		r.take(int(n))
	}
}
