package framework

import (
	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// carry sends req through conn and returns the reply's body, or the
// server's error for it.
func (c *Client) carry(conn *zk.Conn, req *wire.Carried) error {
	_, err := c.carryReply(conn, req)
	return err
}

// carryReply is carry that returns the reply's body.
func (c *Client) carryReply(conn *zk.Conn, req *wire.Carried) ([]byte, error) {
	code, body, err := c.carrier.Send(conn, req)
	if err != nil {
		return nil, err
	}
	if code != wire.CodeOK {
		return nil, wire.CodeError(code)
	}
	return body, nil
}
