package framework

import (
	"bufio"
	"net"
	"time"
)

// readBufferSize is the read buffer of a server connection: room for many
// replies and watch events, which arrive in bursts.
const readBufferSize = 64 << 10

// tappedConn is a server connection as the client dials it by default. It
// reads through a buffer: go-zookeeper reads each packet in two calls
// (length, then body); through the buffer a burst of packets costs one
// system call instead of two per packet. It follows the packets it reads
// (frameScanner), which is how the client learns the session timeout the
// server granted: go-zookeeper keeps it to itself. And it shows each
// request it has written to tap, which is what lets a request be sent
// right behind another (see writeTap).
type tappedConn struct {
	net.Conn
	r      *bufio.Reader
	tap    *writeTap
	acks   *ackTracker // nil without a lease book
	frames frameScanner
}

func (c *tappedConn) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.frames.scan(p[:n])
	return n, err
}

// Write writes one request: go-zookeeper writes each in a single call.
func (c *tappedConn) Write(p []byte) (int, error) {
	if c.acks != nil {
		c.acks.sending(p) // before the server can have heard it
	}
	n, err := c.Conn.Write(p)
	if err == nil {
		c.tap.wrote(p)
	}
	return n, err
}

// dialFunc is go-zookeeper's dialer type.
type dialFunc = func(network, address string, timeout time.Duration) (net.Conn, error)

// tappedDialer is go-zookeeper's default dial with the read buffer and tap
// added. connected is called with each connection's connect response, in
// go-zookeeper's connecting goroutine before it reports the session, so
// the grant is known before the session is announced. Each connection
// advances the session leases of book (see ackTracker).
func tappedDialer(tap *writeTap, book *leaseBook, connected func(connectReply)) dialFunc {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		conn, err := net.DialTimeout(network, address, timeout)
		if err != nil {
			return nil, err
		}
		c := &tappedConn{Conn: conn, r: bufio.NewReaderSize(conn, readBufferSize), tap: tap}
		if book != nil {
			c.acks = &ackTracker{book: book}
		}
		c.frames.onHead = func(index int, head []byte) {
			if index != 0 {
				if c.acks != nil {
					c.acks.replied(head)
				}
				return
			}
			if r, ok := parseConnectReply(head); ok {
				if c.acks != nil {
					c.acks.connected(r) // before go-zookeeper announces the session
				}
				connected(r)
			}
		}
		return c, nil
	}
}
