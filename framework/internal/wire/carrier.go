package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/go-zookeeper/zk"
)

// The carrier sends requests go-zookeeper v1.0.4 cannot send (it speaks
// ZooKeeper 3.4): addWatch, removeWatches, multiRead, setWatches2, and
// reads with a watch that the client, not go-zookeeper, owns. The client
// asks go-zookeeper for an ordinary Get of a reserved path that names the
// real request; the connection wrapper (tappedConn) writes the real
// request in that getData's place, under go-zookeeper's own xid, and
// turns the server's reply into a getData reply whose data is the real
// reply: its error code, then its body. go-zookeeper keeps its single
// writer, its xids, deadlines, the order of its credentials after a
// reconnect and the failing of pending requests; it never learns what was
// sent. Without the wrapper the Get reaches the server as it is and fails
// with NoNode: ErrCarrierMissing, never a wrong answer.

// carrierPrefix starts the reserved paths; the decimal id of the request
// follows. Under /zookeeper, where no client can create a node.
const carrierPrefix = "/zookeeper/zkrecipes_carrier/"

// ErrCarrierMissing is the error of a request the carrier could not send
// because the connection is not wrapped by the client: the reserved path
// reached the server. It is a defect, not a condition of the server.
var ErrCarrierMissing = errors.New("framework: the connection wrapper is not installed")

// ErrUnimplemented is the error of a request the server does not know
// (ZooKeeper's UNIMPLEMENTED): addWatch, multiRead and setWatches2 need
// ZooKeeper 3.6 or later. The client learns what each server implements
// once (see ServerCaps) and fails such a request at once, without sending
// it, where the server lacks it.
var ErrUnimplemented = errors.New("framework: the server does not implement the request")

// Carried is one request for the carrier: its opcode and the body that
// follows the request header.
type Carried struct {
	Opcode int32
	Body   []byte
	// Prepare, if set, may set Opcode and Body as the request is written,
	// on the goroutine that writes the connection: what a request does to
	// the server's watches may depend on the requests written before it,
	// which the server applies first (see the watches package's servermodes.go).
	// It must not block.
	Prepare func(req *Carried)
	// OnReply, if set, is called with the reply's error code, zxid and
	// body on the goroutine that reads the connection, before go-zookeeper
	// reads the reply and before any packet the server sent after it:
	// where a watch is registered, so that no later event can miss it.
	OnReply func(code int32, zxid int64, body []byte)
}

// Carrier is the client's table of requests waiting to be written.
type Carrier struct {
	next    atomic.Uint64
	mu      sync.Mutex
	waiting map[uint64]*Carried
	Servers *ServerCaps // what each server implements
}

// NewCarrier returns an empty carrier that asks servers what they implement.
func NewCarrier(servers *ServerCaps) *Carrier {
	return &Carrier{waiting: make(map[uint64]*Carried), Servers: servers}
}

// Send sends req through conn and returns the reply's error code and body.
// A request the current connection's server lacks fails with
// ErrUnimplemented without a request.
func (k *Carrier) Send(conn *zk.Conn, req *Carried) (code int32, body []byte, err error) {
	server := k.Servers.Current()
	switch lacking, err := k.Servers.lacks(server, req.Opcode); {
	case err != nil:
		return 0, nil, err
	case lacking:
		return codeUnimplemented, nil, ErrUnimplemented
	}
	id := k.next.Add(1)
	k.mu.Lock()
	k.waiting[id] = req
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		delete(k.waiting, id)
		k.mu.Unlock()
	}()
	data, _, err := conn.Get(carrierPrefix + strconv.FormatUint(id, 10))
	if errors.Is(err, zk.ErrNoNode) {
		return 0, nil, ErrCarrierMissing
	}
	if err != nil {
		return 0, nil, err
	}
	if len(data) < 4 {
		return 0, nil, ErrJute
	}
	code = int32(binary.BigEndian.Uint32(data))
	if code == codeUnimplemented {
		k.Servers.Lack(server, req.Opcode)
		return code, nil, ErrUnimplemented
	}
	return code, data[4:], nil
}

// take returns the request that a getData frame stands for, if it is the
// carrier's, and removes it from the table: each is written once.
func (k *Carrier) take(frame []byte) *Carried {
	id, ok := carriedID(frame)
	if !ok {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	req := k.waiting[id]
	delete(k.waiting, id)
	return req
}

// carriedID reads the id of a getData frame of the carrier's: length,
// xid and opcode, each 4 bytes, the path as a length-prefixed string,
// the watch flag.
func carriedID(frame []byte) (uint64, bool) {
	op, path, ok := requestPath(frame)
	if !ok || op != OpGetData || !bytes.HasPrefix(path, []byte(carrierPrefix)) {
		return 0, false
	}
	id, err := strconv.ParseUint(string(path[len(carrierPrefix):]), 10, 64)
	return id, err == nil
}

// carriedFrame is the frame that replaces a carrier's getData frame: the
// same xid, the real opcode and body.
func carriedFrame(getData []byte, req *Carried) []byte {
	frame := make([]byte, 12, 12+len(req.Body))
	binary.BigEndian.PutUint32(frame[0:4], uint32(8+len(req.Body)))
	copy(frame[4:8], getData[4:8])
	binary.BigEndian.PutUint32(frame[8:12], uint32(req.Opcode))
	return append(frame, req.Body...)
}

// getDataReply turns the packet of a carried request's reply (length,
// header, body) into the getData reply go-zookeeper waits for: the same
// xid and zxid, no error, the data the real error code and body, and an
// empty stat.
func getDataReply(packet []byte) ([]byte, error) {
	if len(packet) < 4+16 {
		return nil, fmt.Errorf("%w: a reply of %d bytes", ErrJute, len(packet))
	}
	head, body := packet[4:20], packet[20:]
	data := 4 + len(body)
	out := make([]byte, 4+16+4+data+StatLen)
	binary.BigEndian.PutUint32(out[0:4], uint32(len(out)-4))
	copy(out[4:16], head[0:12]) // xid, zxid
	// error code 0 at out[16:20]
	binary.BigEndian.PutUint32(out[20:24], uint32(data))
	copy(out[24:28], head[12:16]) // the real error code, first in the data
	copy(out[28:], body)
	return out, nil
}

// serverError is an error code of the server's that go-zookeeper has no
// exported error for (it keeps its table of them to itself).
type serverError int32

func (e serverError) Error() string {
	return fmt.Sprintf("framework: the server answered error %d", int32(e))
}

// CodeError is the error of a server's error code: go-zookeeper's error
// where the client's callers test for one, else a serverError.
func CodeError(code int32) error {
	switch code {
	case CodeNoNode:
		return zk.ErrNoNode
	case -102:
		return zk.ErrNoAuth
	case -103:
		return zk.ErrBadVersion
	case -108:
		return zk.ErrNoChildrenForEphemerals
	case -110:
		return zk.ErrNodeExists
	case -111:
		return zk.ErrNotEmpty
	case -112:
		return zk.ErrSessionExpired
	case -114:
		return zk.ErrInvalidACL
	case -115:
		return zk.ErrAuthFailed
	case -116:
		return zk.ErrClosing
	case -117:
		return zk.ErrNothing
	case -118:
		return zk.ErrSessionMoved
	case -8:
		return zk.ErrBadArguments
	case codeUnimplemented:
		return ErrUnimplemented
	}
	return serverError(code)
}

// IsCode reports whether err is the error of the server's code.
func IsCode(err error, code int32) bool {
	var se serverError
	return errors.As(err, &se) && int32(se) == code
}
