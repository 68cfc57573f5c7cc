package zksasl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/go-zookeeper/zk"
)

// opSASL is ZooKeeper's sasl request.
const opSASL = 102

// maxToken bounds a server token: DIGEST-MD5's are a few hundred bytes.
const maxToken = 64 << 10

// ErrAuthFailed is wrapped by the error of a connection whose exchange
// failed for good: the server refused it (a wrong password, an unknown
// user, a server without SASL), answered what DIGEST-MD5 does not allow,
// or did not prove that it knows the password. Another connection would
// fail the same way. A connection lost in the middle of the exchange is
// not: its error is the connection's own.
var ErrAuthFailed = errors.New("zksasl: SASL authentication failed")

// Dialer returns a dialer for go-zookeeper (zk.WithDialer) that dials with
// base (net.DialTimeout when nil) and authenticates every connection as
// user by SASL DIGEST-MD5 before go-zookeeper reads its connect response.
// refused, if not nil, is called with the error (wrapping ErrAuthFailed)
// of each connection whose exchange failed for good, before go-zookeeper
// sees that error.
func Dialer(base zk.Dialer, user, password string, refused func(error)) zk.Dialer {
	if base == nil {
		base = net.DialTimeout
	}
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		conn, err := base(network, address, timeout)
		if err != nil {
			return nil, err
		}
		return &saslConn{Conn: conn, user: user, password: password, writeBound: timeout, refused: refused}, nil
	}
}

// saslConn is a server connection that authenticates in its first Read.
// Its Read is called by one goroutine at a time (go-zookeeper's connecting
// goroutine, then its receive goroutine, which the first one starts), so
// its state needs no lock.
type saslConn struct {
	net.Conn
	user, password string
	writeBound     time.Duration // the dial timeout, bounding each write of the exchange
	refused        func(error)   // told of a failure for good; nil: no one
	started        bool
	response       []byte // the connect response, still to hand on
}

// Read hands on the connect response once the exchange has succeeded, then
// the connection's bytes as they come.
func (c *saslConn) Read(p []byte) (int, error) {
	if !c.started {
		c.started = true
		resp, err := c.handshake()
		if err != nil {
			return 0, err
		}
		c.response = resp
	}
	if len(c.response) > 0 {
		n := copy(p, c.response)
		c.response = c.response[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// handshake reads the connect response and, when it grants a session,
// authenticates; it returns the response, framed, to hand on.
func (c *saslConn) handshake() ([]byte, error) {
	resp, err := readFrame(c.Conn, 1<<10)
	if err != nil {
		return nil, err
	}
	// protocolVersion int32, timeOut int32, sessionId int64, passwd
	// buffer: a timeout of 0 or no session is an expired session, which
	// go-zookeeper handles; there is nothing to authenticate.
	if len(resp) < 20 || int32(binary.BigEndian.Uint32(resp[8:12])) <= 0 || binary.BigEndian.Uint64(resp[12:20]) == 0 {
		return resp, nil
	}
	if err := c.authenticate(); err != nil {
		err = fmt.Errorf("SASL DIGEST-MD5 as %q: %w", c.user, err)
		if errors.Is(err, ErrAuthFailed) && c.refused != nil {
			c.refused(err)
		}
		return nil, err
	}
	return resp, nil
}

// authenticate runs the exchange: an empty token first (DIGEST-MD5 has no
// initial response), then the answer to each server token until the
// mechanism completes.
func (c *saslConn) authenticate() error {
	mech := &digestClient{user: c.user, password: c.password}
	token := []byte{}
	for xid := int32(1); !mech.complete; xid++ {
		reply, err := c.exchange(xid, token)
		if err != nil {
			return err
		}
		if token, err = mech.step(reply); err != nil {
			return err
		}
	}
	return nil
}

// exchange sends one sasl request and returns the server's token.
func (c *saslConn) exchange(xid int32, token []byte) ([]byte, error) {
	req := make([]byte, 16+len(token))
	binary.BigEndian.PutUint32(req[0:4], uint32(12+len(token)))
	binary.BigEndian.PutUint32(req[4:8], uint32(xid))
	binary.BigEndian.PutUint32(req[8:12], opSASL)
	binary.BigEndian.PutUint32(req[12:16], uint32(len(token)))
	copy(req[16:], token)
	if c.writeBound > 0 {
		_ = c.Conn.SetWriteDeadline(time.Now().Add(c.writeBound))
		defer func() { _ = c.Conn.SetWriteDeadline(time.Time{}) }()
	}
	if _, err := c.Conn.Write(req); err != nil {
		return nil, err
	}
	reply, err := readFrame(c.Conn, maxToken)
	if err != nil {
		return nil, err
	}
	return saslToken(xid, reply)
}

// saslToken reads the server's token from the reply to the sasl request
// xid. Whatever is wrong with the reply is for good: the server answers
// the same to the same exchange.
func saslToken(xid int32, reply []byte) ([]byte, error) {
	// length int32, xid int32, zxid int64, err int32, then the token as a
	// buffer.
	if len(reply) < 20 || int32(binary.BigEndian.Uint32(reply[4:8])) != xid {
		return nil, fmt.Errorf("%w: an answer that is not the sasl reply (%d bytes)", ErrAuthFailed, len(reply))
	}
	if code := int32(binary.BigEndian.Uint32(reply[16:20])); code != 0 {
		return nil, fmt.Errorf("%w: the server answered %w", ErrAuthFailed, zkError(code))
	}
	if len(reply) < 24 {
		return nil, fmt.Errorf("%w: a sasl reply without a token", ErrAuthFailed)
	}
	n := int32(binary.BigEndian.Uint32(reply[20:24]))
	if n < 0 {
		return nil, nil
	}
	if int(n) != len(reply)-24 {
		return nil, fmt.Errorf("%w: a sasl token of %d bytes in a reply of %d", ErrAuthFailed, n, len(reply))
	}
	return reply[24:], nil
}

// zkError is go-zookeeper's error for a server's error code.
func zkError(code int32) error {
	switch code {
	case -115:
		return zk.ErrAuthFailed
	case -124:
		return errors.New("SESSIONCLOSEDREQUIRESASLAUTH (-124)")
	}
	return fmt.Errorf("error code %d", code)
}

// readFrame reads one packet, its 4-byte length included, at most limit
// bytes long.
func readFrame(r io.Reader, limit int) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	n := int(int32(binary.BigEndian.Uint32(head[:])))
	if n < 0 || n > limit {
		return nil, fmt.Errorf("zksasl: a packet of %d bytes", n)
	}
	frame := make([]byte, 4+n)
	copy(frame, head[:])
	_, err := io.ReadFull(r, frame[4:])
	return frame, err
}
