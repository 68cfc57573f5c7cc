package wire

import (
	"sync/atomic"
	"time"
)

// HandshakeShare is the part of the session timeout that a connection may
// wait for the answer to its connect request: a third, so that a client
// that gives a handshake up has time to connect again, maybe twice, before
// the session expires.
//
// go-zookeeper alone waits ten receive timeouts (20/3 of the session
// timeout). A server that never answers is not hypothetical: ZooKeeper
// 3.8.0 standalone leaves a connection that arrives while it starts open
// and unanswered (ZOOKEEPER-5051), and a client reconnecting to a
// restarted server meets it; it then lost a session that the restart had
// kept.
const HandshakeShare = 3

// HandshakeBound is the longest wait for a connect response on the
// connections of one go-zookeeper connection: a share of the session
// timeout in force, the one asked for until the server grants one.
type HandshakeBound struct {
	timeout atomic.Int64 // time.Duration
}

// NewHandshakeBound returns the bound for a session timeout asked of asked.
func NewHandshakeBound(asked time.Duration) *HandshakeBound {
	b := &HandshakeBound{}
	b.timeout.Store(int64(asked))
	return b
}

// Granted records the session timeout a connect response granted.
func (b *HandshakeBound) Granted(d time.Duration) {
	if d > 0 {
		b.timeout.Store(int64(d))
	}
}

// wait returns how long a handshake may wait for its answer.
func (b *HandshakeBound) wait() time.Duration {
	return time.Duration(b.timeout.Load()) / HandshakeShare
}
