package zktest

import (
	"net"
	"time"

	"github.com/go-zookeeper/zk"
)

// BoundedHandshake returns a go-zookeeper dialer that dials as go-zookeeper
// does, and gives a connection's handshake up when the server's answer has
// not begun within bound. ZooKeeper 3.8.0 standalone leaves a connection
// that arrives while it starts open and unanswered (ZOOKEEPER-5051), which
// a client reconnecting to a restarted server meets; go-zookeeper alone
// waits ten receive timeouts (20/3 of the session timeout) for the answer,
// past the session's expiry. framework's client bounds it itself (a third
// of the session timeout); a test's raw go-zookeeper client whose session
// is to live through a restart dials through this, with zk.WithDialer.
func BoundedHandshake(bound time.Duration) zk.Dialer {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		c, err := net.DialTimeout(network, address, timeout)
		if err != nil {
			return nil, err
		}
		return &handshakeConn{Conn: c, bound: bound}, nil
	}
}

// handshakeConn caps the read deadline until the server's first bytes.
type handshakeConn struct {
	net.Conn
	bound time.Duration
	// answered tells that a read returned data. go-zookeeper reads the
	// connect response on one goroutine and starts the one that reads
	// after it, so the two never touch it at once.
	answered bool
}

// SetReadDeadline sets the deadline of the reads to come, no later than
// bound from now until the server has answered.
func (c *handshakeConn) SetReadDeadline(t time.Time) error {
	if !c.answered && !t.IsZero() && time.Until(t) > c.bound {
		t = time.Now().Add(c.bound)
	}
	return c.Conn.SetReadDeadline(t)
}

// Read reads from the connection and notes the server's first answer.
func (c *handshakeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.answered = true
	}
	return n, err
}
