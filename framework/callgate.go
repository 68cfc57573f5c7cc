package framework

import (
	"net"
	"sync"
	"time"
)

// closeDrain bounds how long Close waits for the calls under way to be
// answered, before and after it cuts their link: about a ping interval of
// a short session, long enough for a server that answers, short enough
// for a process that ends.
const closeDrain = time.Second

// callGate counts the calls on go-zookeeper's connection that are under
// way, so that Close can let them end before it closes the connection.
// go-zookeeper's Close fails a call at once, while the call's answer may
// still be decoded into the result that the caller reads afterwards (its
// CreateContainer, CreateTTL and Multi read it even then): a data race in
// go-zookeeper 1.0.4, which only a call that has ended avoids.
type callGate struct {
	mu     sync.Mutex
	n      int
	closed bool
	idle   chan struct{} // made by close; closed once closed and n == 0
	link   net.Conn      // the last link dialed by the newest connection, cut by sever
	gen    uint64        // the generation of the connection that dialed link
	shut   bool          // Close is done with go-zookeeper: no more dials
}

// enter counts a call about to be sent, unless Close has begun: then it
// returns false and the call must not be made.
func (g *callGate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.n++
	return true
}

// leave counts a call that has returned.
func (g *callGate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	if g.closed && g.n == 0 {
		close(g.idle)
	}
}

// close refuses every call from now on and returns a channel closed once
// the calls under way have returned.
func (g *callGate) close() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		g.closed = true
		g.idle = make(chan struct{})
		if g.n == 0 {
			close(g.idle)
		}
	}
	return g.idle
}

// dialed records conn, dialed by the connection of generation gen, as the
// link the calls go over, unless a newer connection has dialed (an old
// connection still redials until its Close is done); once Close is done
// with go-zookeeper, it closes conn and returns ErrClosed.
func (g *callGate) dialed(gen uint64, conn net.Conn) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shut {
		_ = conn.Close()
		return ErrClosed
	}
	if gen >= g.gen {
		g.link, g.gen = conn, gen
	}
	return nil
}

// shutDown ends go-zookeeper's connection loop for good, once its Close
// has returned: a reconnect that Close's request missed (sent nothing
// within go-zookeeper's wait) would otherwise keep the session up with
// pings and no owner. It refuses every later dial and cuts the last link.
func (g *callGate) shutDown() {
	g.mu.Lock()
	g.shut = true
	g.mu.Unlock()
	g.sever()
}

// sever cuts the link: go-zookeeper then fails the calls on it through its
// own receive path, after its last decode, so that they end without the
// race; it connects again (the same session) to send Close's request.
func (g *callGate) sever() {
	g.mu.Lock()
	link := g.link
	g.mu.Unlock()
	if link != nil {
		_ = link.Close()
	}
}

// drain lets the calls under way end before Close closes go-zookeeper's
// connection: it refuses new calls (ErrClosed), waits for the answers up
// to closeDrain, then cuts the link and waits as long again. A call still
// under way after that (go-zookeeper's send queue stuck) is left to the
// race.
func (g *callGate) drain() {
	idle := g.close()
	for i := range 2 {
		t := time.NewTimer(closeDrain)
		select {
		case <-idle:
			t.Stop()
			return
		case <-t.C:
		}
		if i == 0 {
			g.sever()
		}
	}
}

// onConn runs call, a call on go-zookeeper's connection, unless Close has
// begun (ErrClosed); Close waits for it to return.
func onConn[T any](c *Client, call func() (T, error)) (T, error) {
	if !c.calls.enter() {
		var zero T
		return zero, ErrClosed
	}
	defer c.calls.leave()
	return call()
}
