package zktesting

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
)

// Faults injects network faults into the connections of the ZooKeeper
// clients that dial through it, while the server runs on: Cut drops the
// connections (the session survives), Pause partitions the clients from the
// server, and ExpireSession partitions them until the server has expired the
// session. Pass its Dial to go-zookeeper, with the framework as
//
//	framework.WithZKOptions(zk.WithDialer(faults.Dial))
//
// Its methods are safe for concurrent use.
type Faults struct {
	mu      sync.Mutex
	conns   map[*faultConn]struct{}
	resumed chan struct{} // nil when not paused; closed by Resume
}

// NewFaults returns a Faults that lets everything through.
func NewFaults() *Faults {
	return &Faults{conns: make(map[*faultConn]struct{})}
}

// Dial connects to address as net.DialTimeout does, unless a partition is on:
// then it waits until it ends or timeout passes, and fails in the latter case,
// as a dial into a partition does. It has go-zookeeper's Dialer signature.
func (f *Faults) Dial(network, address string, timeout time.Duration) (net.Conn, error) {
	if resumed := f.pauseChan(); resumed != nil {
		select {
		case <-resumed:
		case <-time.After(timeout):
			return nil, fmt.Errorf("zktesting: dial %s: partitioned", address)
		}
	}
	conn, err := net.DialTimeout(network, address, timeout)
	if err != nil {
		return nil, err
	}
	c := &faultConn{Conn: conn, f: f}
	f.mu.Lock()
	f.conns[c] = struct{}{}
	f.mu.Unlock()
	return c, nil
}

// Cut closes every current connection; the clients reconnect at once, in the
// same session.
func (f *Faults) Cut() {
	for _, c := range f.snapshot(false) {
		_ = c.Close()
	}
}

// Pause partitions the clients from the server: connections stay open, but
// what either side sends is dropped, and new connections wait. The server
// expires the sessions whose timeout runs out during the partition.
func (f *Faults) Pause() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.resumed == nil {
		f.resumed = make(chan struct{})
	}
}

// Resume ends a partition. Connections that lost data during it are cut,
// since their request and reply streams no longer match; the clients
// reconnect and learn whether their sessions survived.
func (f *Faults) Resume() {
	f.mu.Lock()
	if f.resumed != nil {
		close(f.resumed)
		f.resumed = nil
	}
	f.mu.Unlock()
	for _, c := range f.snapshot(true) {
		_ = c.Close()
	}
}

// ExpireSession partitions the clients (Pause) until no server of servers,
// a connect string, lists the session sessionID any more (the dump
// four-letter word, which the leader answers), then ends the partition. The
// server expires the session after its negotiated timeout, so that is about
// how long it takes. It gives up when ctx ends, ending the partition too.
//
// One dump that leaves the session out is not proof: the server moves a
// session that a request touches to a later expiry bucket, and a dump
// taken meanwhile can miss it (a request that was on its way as the
// partition began). The session is taken as expired once two dumps in a
// row, a probe interval apart, leave it out: a second miss would need a
// second touch, and the partition lets no new request through.
func (f *Faults) ExpireSession(ctx context.Context, servers string, sessionID int64) error {
	f.Pause()
	defer f.Resume()
	ticker := time.NewTicker(probeInterval)
	defer ticker.Stop()
	missed := false // the previous dump left the session out
	for {
		live, err := sessionListed(ctx, servers, sessionID)
		switch {
		case err != nil || live:
			missed = false
		case missed:
			return nil
		default:
			missed = true
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("zktesting: session 0x%x not expired: %w (last look: %v)", sessionID, ctx.Err(), err)
		case <-ticker.C:
		}
	}
}

// sessionListed tells whether any server of servers lists the session in
// its session tracker.
func sessionListed(ctx context.Context, servers string, sessionID int64) (bool, error) {
	want := fmt.Sprintf("\t0x%x\n", sessionID)
	for _, addr := range strings.Split(servers, ",") {
		dump, err := FourLetterWord(ctx, addr, "dump")
		if err != nil {
			return false, err
		}
		tracker, _, _ := strings.Cut(dump, "ephemeral nodes dump")
		if strings.Contains(tracker, want) {
			return true, nil
		}
	}
	return false, nil
}

// pauseChan returns the channel Resume closes, or nil when not paused.
func (f *Faults) pauseChan() chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.resumed
}

// snapshot returns the open connections, or only those that lost data.
func (f *Faults) snapshot(taintedOnly bool) []*faultConn {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*faultConn
	for c := range f.conns {
		if !taintedOnly || c.tainted {
			out = append(out, c)
		}
	}
	return out
}

// faultConn is one connection dialled through Faults.
type faultConn struct {
	net.Conn
	f       *Faults
	tainted bool // guarded by f.mu: data was dropped during a partition
}

// Read returns what the server sent, dropping what arrives while partitioned.
func (c *faultConn) Read(b []byte) (int, error) {
	for {
		n, err := c.Conn.Read(b)
		if err != nil || !c.dropped() {
			return n, err
		}
	}
}

// Write sends b, or drops it while partitioned (as a network would, the
// writer does not know).
func (c *faultConn) Write(b []byte) (int, error) {
	if c.dropped() {
		return len(b), nil
	}
	return c.Conn.Write(b)
}

// dropped tells whether a partition is on, and marks the connection as
// having lost data if so.
func (c *faultConn) dropped() bool {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	if c.f.resumed == nil {
		return false
	}
	c.tainted = true
	return true
}

// Close closes the connection and forgets it.
func (c *faultConn) Close() error {
	c.f.mu.Lock()
	delete(c.f.conns, c)
	c.f.mu.Unlock()
	return c.Conn.Close()
}
