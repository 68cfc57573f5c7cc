package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkrecipes/zkrecipes/framework/internal/lease"
)

// readBufferSize is the read buffer of a server connection: room for many
// replies and watch events, which arrive in bursts.
const readBufferSize = 64 << 10

// maxWholePacket bounds a packet from the server: far above any server's
// jute.maxbuffer. A longer one is refused rather than handed on, for
// go-zookeeper would try to allocate it.
const maxWholePacket = 256 << 20

// errUnfollowable ends a connection whose packets the wrapper cannot
// follow; go-zookeeper then reconnects. It is never a reply handed to the
// wrong caller.
var errUnfollowable = errors.New("framework: a packet from the server cannot be followed")

// tappedConn is a server connection as the client wraps it, over the
// default dial or a dialer of the caller's own. It reads through a buffer:
// go-zookeeper reads each packet in two calls (length, then body); through
// the buffer a burst of packets costs one system call instead of two per
// packet. It follows the packets it reads (frameScanner), which is how the
// client learns the session timeout the server granted: go-zookeeper keeps
// it to itself. It shows each request it has written to tap, which is what
// lets a request be sent right behind another (see WriteTap). And it is
// the carrier's other half (see Carrier): it writes carried requests in
// place of their getData frames, turns their replies back into getData
// replies, and takes every watch notification for the client's own watch
// table, so that go-zookeeper sees none and owns no watch.
type tappedConn struct {
	net.Conn
	r      *bufio.Reader
	wire   *Hooks
	acks   *AckTracker // nil without a lease book
	frames frameScanner

	writes  atomic.Int64 // frames written; the first is the connect request
	session atomic.Int64 // the session of the connect response; 0 before it

	mu      sync.Mutex // guards carried
	carried map[int32]*Carried

	// Read's state, on go-zookeeper's receive goroutine only.
	packets  int    // packets begun; the first is the connect response
	passLeft int    // bytes of the current packet to hand on as they are
	out      []byte // a rewritten packet still to hand on
}

// Hooks is what every connection of a client shares.
type Hooks struct {
	Tap       *WriteTap               // shown every request written
	Bound     *BoundWrites            // nil: none refused
	Book      *lease.Book             // nil: no lease
	Carrier   *Carrier                // the carried requests to write
	Connected func(ConnectReply)      // each connect response, before go-zookeeper announces the session
	Handshake *HandshakeBound         // bounds the wait for each connect response; nil: go-zookeeper's
	Notify    func(body []byte) error // each notification's body; an error ends the connection
	Zxid      func(int64)             // the zxid of each reply
}

// Read hands go-zookeeper the server's packets: most as they are, carried
// replies rewritten, notifications not at all.
func (c *tappedConn) Read(p []byte) (int, error) {
	for {
		if len(c.out) > 0 {
			n := copy(p, c.out)
			c.out = c.out[n:]
			return n, nil
		}
		if c.passLeft > 0 {
			n, err := c.r.Read(p[:min(len(p), c.passLeft)])
			c.frames.scan(p[:n])
			c.passLeft -= n
			return n, err
		}
		if err := c.nextPacket(); err != nil {
			return 0, err
		}
	}
}

// nextPacket looks at the head of the next packet and decides its fate.
func (c *tappedConn) nextPacket() error {
	head, err := c.r.Peek(8) // length and, for a reply, its xid
	if err != nil {
		if len(head) > 0 && errors.Is(err, io.EOF) {
			return io.ErrUnexpectedEOF // the connection ended inside a packet
		}
		return err
	}
	length := int(int32(binary.BigEndian.Uint32(head[0:4])))
	c.packets++
	if c.packets == 1 {
		if length < 0 {
			return errUnfollowable
		}
		c.passLeft = 4 + length // the connect response
		return nil
	}
	if length < 16 || length > maxWholePacket {
		return fmt.Errorf("%w: a reply of %d bytes", errUnfollowable, length)
	}
	xid := int32(binary.BigEndian.Uint32(head[4:8]))
	var req *Carried
	if xid == notificationXid {
		// handled below
	} else if req = c.takeCarried(xid); req == nil {
		c.passLeft = 4 + length
		return nil
	}
	packet := make([]byte, 4+length)
	if _, err := io.ReadFull(c.r, packet); err != nil {
		return err
	}
	c.frames.scan(packet)
	if req == nil {
		if err := c.wire.Notify(packet[20:]); err != nil {
			return fmt.Errorf("%w: %w", errUnfollowable, err)
		}
		return nil
	}
	if req == refusal {
		c.out = refusedReply(packet)
		return nil
	}
	if req.OnReply != nil {
		req.OnReply(int32(binary.BigEndian.Uint32(packet[16:20])), int64(binary.BigEndian.Uint64(packet[8:16])), packet[20:])
	}
	c.out, err = getDataReply(packet)
	return err
}

// takeCarried returns and forgets the carried request written with xid.
func (c *tappedConn) takeCarried(xid int32) *Carried {
	c.mu.Lock()
	defer c.mu.Unlock()
	req := c.carried[xid]
	if req != nil {
		delete(c.carried, xid)
	}
	return req
}

// SetReadDeadline sets the deadline of the reads to come; until the connect
// response has begun, no later than the handshake's bound. go-zookeeper
// sets it before it reads the connect response and before each read after,
// on the goroutine that reads.
func (c *tappedConn) SetReadDeadline(t time.Time) error {
	if c.packets == 0 && !t.IsZero() && c.wire.Handshake != nil {
		t = earliest(t, time.Now().Add(c.wire.Handshake.wait()))
	}
	return c.Conn.SetReadDeadline(t)
}

// earliest returns the earlier of two times.
func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// Write writes one request: go-zookeeper writes each in a single call.
func (c *tappedConn) Write(p []byte) (int, error) {
	frame := p
	if c.writes.Add(1) > 1 {
		if req := c.wire.Carrier.take(p); req != nil {
			if req.Prepare != nil {
				req.Prepare(req)
			}
			frame = carriedFrame(p, req)
			xid := int32(binary.BigEndian.Uint32(p[4:8]))
			c.mu.Lock()
			c.carried[xid] = req // before the reply can arrive
			c.mu.Unlock()
		} else if c.wire.Bound.refuses(p, c.session.Load()) {
			// Queued in another session: written here, it would be
			// applied in this one.
			frame = refusedFrame(p)
			c.mu.Lock()
			c.carried[int32(binary.BigEndian.Uint32(p[4:8]))] = refusal
			c.mu.Unlock()
		}
	}
	if c.acks != nil {
		c.acks.Sending(frame) // before the server can have heard it
	}
	if _, err := c.Conn.Write(frame); err != nil {
		return 0, err
	}
	c.wire.Tap.wrote(frame)
	return len(p), nil
}

// WrappingDialer wraps each connection base dials (go-zookeeper's default
// dial when nil) in a tappedConn. Each connection advances the session
// leases of hooks.Book (see AckTracker).
func WrappingDialer(base DialFunc, hooks *Hooks) DialFunc {
	if base == nil {
		base = net.DialTimeout
	}
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		conn, err := base(network, address, timeout)
		if err != nil {
			return nil, err
		}
		hooks.Carrier.Servers.connected(address)
		c := &tappedConn{Conn: conn, r: bufio.NewReaderSize(conn, readBufferSize), wire: hooks, carried: make(map[int32]*Carried)}
		if hooks.Book != nil {
			c.acks = &AckTracker{Book: hooks.Book}
		}
		c.frames.onHead = func(index int, head []byte) {
			if index != 0 {
				c.replied(head)
				return
			}
			if r, ok := parseConnectReply(head); ok {
				c.session.Store(r.SessionID)
				if c.acks != nil {
					c.acks.Connected(r) // before go-zookeeper announces the session
				}
				hooks.Connected(r)
			}
		}
		return c, nil
	}
}

// replied follows the header of a reply: xid, zxid, error code.
func (c *tappedConn) replied(head []byte) {
	if c.acks != nil {
		c.acks.Replied(head)
	}
	if len(head) >= 12 && int32(binary.BigEndian.Uint32(head[0:4])) >= 0 {
		if zxid := int64(binary.BigEndian.Uint64(head[4:12])); zxid > 0 {
			c.wire.Zxid(zxid)
		}
	}
}
