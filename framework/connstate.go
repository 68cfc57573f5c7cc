package framework

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework/internal/lease"
	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// connEvent is a session event of one go-zookeeper connection, or the end
// of sending its credentials.
type connEvent struct {
	gen       uint64
	state     zk.State
	sessionID int64 // for StateHasSession
	authDone  bool
	authErr   error
	accepted  int           // with authDone: how many credentials the server has accepted on this connection
	granted   time.Duration // the session timeout the server granted, from the connect response
}

// eventQueue is an unbounded queue between go-zookeeper's event callback,
// which must never block, and the state loop.
type eventQueue struct {
	mu      sync.Mutex
	pending []connEvent
	wake    chan struct{} // capacity 1
}

func newEventQueue() *eventQueue { return &eventQueue{wake: make(chan struct{}, 1)} }

func (q *eventQueue) push(e connEvent) {
	q.mu.Lock()
	q.pending = append(q.pending, e)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *eventQueue) drain() []connEvent {
	q.mu.Lock()
	defer q.mu.Unlock()
	batch := q.pending
	q.pending = nil
	return batch
}

// suspension records when the connection went down.
type suspension struct {
	active bool
	since  int64 // the client's clock reading (monotonic)
}

// dial opens a new go-zookeeper connection (a new session) and makes it the
// client's; events of earlier connections are ignored from then on, and
// so are their connect responses, notifications and zxids (see connHooks).
func (c *Client) dial() error {
	c.mu.Lock()
	c.gen++
	gen := c.gen
	c.liveGen.Store(gen)
	c.granted = 0
	c.mu.Unlock()

	var conn *zk.Conn
	ready := make(chan struct{})
	connOf := func() *zk.Conn { <-ready; return conn }
	// The caller's options come first, the client's dialer (which wraps
	// the caller's own, if any) and event callback last: the client cannot
	// work without them.
	opts := []func(*zk.Conn){
		zk.WithHostProvider(c.ensemble.newProvider()),
		zk.WithLogger(zkLogger{l: c.log}),
	}
	opts = append(opts, c.cfg.zkOptions...)
	dialer := wire.WrappingDialer(c.saslDialer(c.baseDial), c.connHooks(gen, connOf))
	opts = append(opts, zk.WithDialer(c.recordDials(gen, dialer)), zk.WithEventCallback(c.sessionEvents(gen, connOf)))
	conn, _, err := zk.Connect(c.servers, c.cfg.sessionTimeout, func(z *zk.Conn) {
		for _, o := range opts {
			o(z)
		}
	})
	close(ready)
	if err != nil {
		return fmt.Errorf("framework: connect: %w", err)
	}
	return c.adopt(conn)
}

// sessionEvents is the event callback of the connection of generation
// gen: it queues its session events for the state loop. conn waits for
// the connection that zk.Connect returns.
func (c *Client) sessionEvents(gen uint64, conn func() *zk.Conn) func(zk.Event) {
	return func(ev zk.Event) {
		if ev.Type != zk.EventSession {
			return // the wrapper takes every notification: none reaches here
		}
		e := connEvent{gen: gen, state: ev.State}
		if ev.State == zk.StateHasSession {
			// go-zookeeper sets the id just before it sends this event.
			e.sessionID = conn().SessionID()
		}
		c.events.push(e)
	}
}

// connHooks are what the server connections of generation gen tell the
// client. A connection that dial has replaced lives on until its Close
// ends it, about a second, and may read a connect response meanwhile (its
// old session, which the server kept): its hooks then leave the watch
// table alone, or they would reset it to that session, end its one-shot
// watches and interrupt its persistent ones while the new connection has
// them on the server. Its notifications are of watches of a session the
// client has left, and its zxids of that session's replies. The check is
// an atomic load, for it runs on every reply; a hook that passed it just
// before a dial is undone by the new connection's own connect response.
func (c *Client) connHooks(gen uint64, conn func() *zk.Conn) *wire.Hooks {
	handshake := wire.NewHandshakeBound(c.cfg.sessionTimeout)
	current := func() bool { return c.liveGen.Load() == gen }
	return &wire.Hooks{
		Tap:       c.tap,
		Bound:     &c.bound,
		Book:      c.leases,
		Carrier:   c.carrier,
		Handshake: handshake,
		Connected: func(r wire.ConnectReply) {
			handshake.Granted(r.Timeout)
			c.events.push(connEvent{gen: gen, granted: r.Timeout})
			if current() {
				c.restoreWatches(r.SessionID, conn)
			}
		},
		Notify: func(body []byte) error {
			if !current() {
				return nil
			}
			return c.watches.Notify(body)
		},
		Zxid: func(zxid int64) {
			if current() {
				c.watches.SawZxid(zxid)
			}
		},
	}
}

// adopt makes conn the client's connection, with its credentials still to
// be accepted, unless the client was closed meanwhile.
func (c *Client) adopt(conn *zk.Conn) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		go conn.Close() // Close raced with a redial; ends within a second.
		return ErrClosed
	}
	c.conn = conn
	c.auth = authState{done: len(c.cfg.auth) == 0, refused: c.auth.refused} // a refusal stays: the credentials do not change
	return nil
}

// runStates turns connection events into states, and declares a session
// lost when the client has been suspended for longer than its timeout.
func (c *Client) runStates() {
	defer c.wg.Done()
	lostTimer := time.NewTimer(time.Hour)
	lostTimer.Stop()
	defer lostTimer.Stop()
	for {
		select {
		case <-c.life.Done():
			return
		case <-c.events.wake:
			c.mu.Lock()
			s := c.seams
			c.mu.Unlock()
			s.statesGate(c.life.Done())
			for _, e := range c.events.drain() {
				c.handle(e, lostTimer)
			}
		case <-lostTimer.C:
			c.checkLost(lostTimer)
		}
	}
}

func (c *Client) handle(e connEvent, lostTimer *time.Timer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.gen != c.gen || c.closed {
		return
	}
	switch {
	case e.granted > 0:
		c.granted = e.granted
		if !lease.Keepable(e.granted, c.cfg.leaseMargin, c.cfg.serverLag) {
			c.log.Warn("the server granted a session timeout too short for the configured server lag: "+
				"the session lease runs out between pings, and every hold ends at once",
				"granted", e.granted, "server_lag", c.cfg.serverLag)
		}
	case e.authDone:
		c.credentialsAnswered(e)
		if c.auth.done && c.conn.State() == zk.StateHasSession {
			c.onSession(c.conn.SessionID(), lostTimer)
		}
	case e.state == zk.StateHasSession:
		if !c.auth.done {
			c.sendCredentials()
			return
		}
		c.onSession(e.sessionID, lostTimer)
	case e.state == zk.StateConnectedReadOnly:
		// go-zookeeper v1.0.4 has no read-only mode and never reports
		// this; the state is mapped for a client that does.
		c.connected = true
		closeOnce(c.connectedCh)
		c.emit(ReadOnly, c.conn.SessionID(), false)
	case e.state == zk.StateDisconnected:
		c.onDisconnected(lostTimer)
	case e.state == zk.StateExpired:
		c.connected = false
		lostTimer.Stop()
		c.loseSession()
	case e.state == zk.StateAuthFailed:
		c.log.Error("authentication failed")
	}
}

func (c *Client) onSession(id int64, lostTimer *time.Timer) {
	if c.connected && c.session != nil && c.session.id == id {
		return
	}
	lostTimer.Stop()
	c.suspension = suspension{}
	c.reach.connected()
	c.connected = true
	closeOnce(c.connectedCh)
	if s := c.session; s != nil && s.id == id {
		s.resume()
		c.emit(Reconnected, id, false)
		return
	}
	if c.session != nil {
		// A new session without an expiry event: the old one is gone all
		// the same.
		c.loseSession()
	}
	c.session = newSession(id, c.leases.Find(id), c.leaseLapsed)
	if c.state == 0 {
		c.emit(Connected, id, false)
		return
	}
	c.emit(Reconnected, id, true)
}

func (c *Client) onDisconnected(lostTimer *time.Timer) {
	if !c.connected {
		return
	}
	c.connected = false
	c.connectedCh = make(chan struct{})
	if c.session == nil {
		return
	}
	c.session.suspend()
	c.suspension = suspension{active: true, since: c.clock.Now()}
	lostTimer.Reset(c.sessionTimeoutLocked())
	c.emit(Suspended, c.session.id, false)
}

// checkLost declares the session lost once the client has been suspended
// for the whole session timeout, and moves to a new connection so that the
// old session is never resumed.
func (c *Client) checkLost(lostTimer *time.Timer) {
	c.mu.Lock()
	if c.closed || c.connected || c.session == nil || !c.suspension.active {
		c.mu.Unlock()
		return
	}
	if left := c.sessionTimeoutLocked() - time.Duration(c.clock.Now()-c.suspension.since); left > 0 {
		lostTimer.Reset(left)
		c.mu.Unlock()
		return
	}
	c.log.Warn("session timeout elapsed while suspended; abandoning the session", "session", fmt.Sprintf("%#x", c.session.id))
	c.loseSession()
	old := c.conn
	c.mu.Unlock()

	if err := c.dial(); err != nil {
		c.log.Error("reconnecting after a lost session failed", "err", err)
	}
	// Ends within go-zookeeper's close wait (about a second).
	if !c.spawn(old.Close) {
		old.Close()
	}
}

// loseSession abandons the current session. Callers hold c.mu.
func (c *Client) loseSession() {
	s := c.session
	if s == nil {
		return
	}
	c.session = nil
	c.suspension = suspension{}
	s.abandon()
	c.leases.Forget(s.id)
	c.emit(Lost, s.id, false)
}

// leaseLapsed logs that a session's lease ran out while connected or not:
// every hold of the session has ended.
func (c *Client) leaseLapsed(s *Session) {
	c.log.Warn("session lease ran out without a newer acknowledged request; holds of the session end",
		"session", fmt.Sprintf("%#x", s.id))
}

// emit records and publishes a state change. Callers hold c.mu, which
// keeps the order the same for every listener.
func (c *Client) emit(state ConnectionState, sessionID int64, newSession bool) {
	c.state = state
	c.log.Debug("connection state", "state", state, "session", fmt.Sprintf("%#x", sessionID), "new_session", newSession)
	c.listeners.publish(StateChange{State: state, SessionID: sessionID, NewSession: newSession, At: c.clock.Wall()})
}

// zkLogger sends go-zookeeper's log lines to slog at debug level.
type zkLogger struct{ l *slog.Logger }

func (z zkLogger) Printf(format string, args ...any) {
	if z.l.Enabled(context.Background(), slog.LevelDebug) {
		z.l.Debug(fmt.Sprintf(format, args...), "source", "go-zookeeper")
	}
}
