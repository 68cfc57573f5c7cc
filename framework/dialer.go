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
// system call instead of two per packet. And it shows each request it has
// written to tap, which is what lets a request be sent right behind
// another (see writeTap).
type tappedConn struct {
	net.Conn
	r   *bufio.Reader
	tap *writeTap
}

func (c *tappedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// Write writes one request: go-zookeeper writes each in a single call.
func (c *tappedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if err == nil {
		c.tap.wrote(p)
	}
	return n, err
}

// dialer is go-zookeeper's default dial with the read buffer and tap added.
func (t *writeTap) dialer() func(network, address string, timeout time.Duration) (net.Conn, error) {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		conn, err := net.DialTimeout(network, address, timeout)
		if err != nil {
			return nil, err
		}
		return &tappedConn{Conn: conn, r: bufio.NewReaderSize(conn, readBufferSize), tap: t}, nil
	}
}
