package framework

import (
	"bufio"
	"net"
	"time"
)

// readBufferSize is the read buffer of a server connection: room for many
// replies and watch events, which arrive in bursts.
const readBufferSize = 64 << 10

// bufferedConn reads its connection through a buffer. go-zookeeper reads
// each packet in two calls (length, then body); through the buffer a burst
// of packets costs one system call instead of two per packet.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// dialBuffered is go-zookeeper's default dial with a read buffer added.
func dialBuffered(network, address string, timeout time.Duration) (net.Conn, error) {
	conn, err := net.DialTimeout(network, address, timeout)
	if err != nil {
		return nil, err
	}
	return &bufferedConn{Conn: conn, r: bufio.NewReaderSize(conn, readBufferSize)}, nil
}
