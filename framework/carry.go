package framework

import "github.com/go-zookeeper/zk"

// carry sends req through conn and returns the reply's body, or the
// server's error for it.
func (c *Client) carry(conn *zk.Conn, req *carried) error {
	_, err := c.carryReply(conn, req)
	return err
}

// carryReply is carry that returns the reply's body.
func (c *Client) carryReply(conn *zk.Conn, req *carried) ([]byte, error) {
	code, body, err := c.carrier.send(conn, req)
	if err != nil {
		return nil, err
	}
	if code != codeOK {
		return nil, codeError(code)
	}
	return body, nil
}
