package framework

import (
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework/internal/lease"
	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// HoldBackgroundDeletes holds every background delete of c started from
// now on back until release is called; held returns the channels that
// close when each held delete has ended.
func HoldBackgroundDeletes(c *Client) (release func(), held func() []<-chan struct{}) {
	s := &seams{gate: make(chan struct{})}
	c.mu.Lock()
	c.seams = s
	c.mu.Unlock()
	release = func() { close(s.gate) }
	held = func() []<-chan struct{} {
		s.mu.Lock()
		defer s.mu.Unlock()
		return append([]<-chan struct{}(nil), s.held...)
	}
	return release, held
}

// SteppingClock is a client clock whose wall reading a test steps while
// its monotonic reading runs on as the process's does.
type SteppingClock struct {
	mono lease.MonoClock
	step atomic.Int64
}

// NewSteppingClock returns a clock that has not been stepped.
func NewSteppingClock() *SteppingClock { return &SteppingClock{mono: lease.NewMonoClock()} }

// Step moves the wall reading by d, forward or back.
func (c *SteppingClock) Step(d time.Duration) { c.step.Add(int64(d)) }

func (c *SteppingClock) Now() int64           { return c.mono.Now() }
func (c *SteppingClock) At(n int64) time.Time { return c.mono.At(n) }

// Wall carries no monotonic reading: whatever compares it compares wall
// times, and sees the steps.
func (c *SteppingClock) Wall() time.Time {
	return time.Now().Round(0).Add(time.Duration(c.step.Load()))
}

// WithClock makes the client read the time from c.
func WithClock(c *SteppingClock) Option {
	return func(cfg *config) error {
		cfg.clock = c
		return nil
	}
}

// GoZookeeperWatchers returns how many paths go-zookeeper's own watcher
// table holds for c's connection, read by reflection: the table is
// unexported, and the client keeps it empty (see "The wire").
func GoZookeeperWatchers(c *Client) int {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	f := reflect.ValueOf(conn).Elem().FieldByName("watchers")
	if !f.IsValid() {
		panic("go-zookeeper's Conn has no watchers field: update GoZookeeperWatchers")
	}
	return f.Len()
}

// CountNotifications counts, from now on, the notifications c receives
// for path (a server path), whatever watch of c's they are for.
func CountNotifications(c *Client, path string) (count func() int) {
	var n atomic.Int64
	prev := c.watches.OnNode()
	counting := func(ev zk.Event) {
		if ev.Path == path {
			n.Add(1)
		}
		prev(ev)
	}
	c.watches.SetOnNode(counting)
	return func() int { return int(n.Load()) }
}

// HoldRestores holds every restore of c's watches after a reconnect back
// until release is called.
func HoldRestores(c *Client) (release func()) {
	s := &seams{restores: make(chan struct{})}
	c.mu.Lock()
	c.seams = s
	c.mu.Unlock()
	return func() { close(s.restores) }
}

// WatchesSettled reports whether no server watch of path (a server path)
// lingers or is being removed for c: the removals of its closed Watches
// have run.
func WatchesSettled(c *Client, path string) bool {
	return c.watches.Settled(path)
}

// HoldProbes holds ChangedSince's requests of c back, once it has chosen
// which paths to ask with a one-shot watch, until release is called;
// waiting is told each time one waits.
func HoldProbes(c *Client) (waiting <-chan struct{}, release func()) {
	s := &seams{probes: make(chan struct{}), probing: make(chan struct{}, 1)}
	c.mu.Lock()
	c.seams = s
	c.mu.Unlock()
	return s.probing, func() { close(s.probes) }
}

// HoldStates holds the handling of c's connection events back until
// release is called: c keeps the connection state and session it has now
// while go-zookeeper reconnects, even in a new session.
func HoldStates(c *Client) (release func()) {
	s := &seams{states: make(chan struct{})}
	c.mu.Lock()
	c.seams = s
	c.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { close(s.states) }) }
}

// ConnSessionID returns the session go-zookeeper's connection of c is in
// now, which c learns from an event handled later.
func ConnSessionID(c *Client) int64 {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	return conn.SessionID()
}

// LinkState returns the state of c's go-zookeeper connection: a test
// learns from StateDisconnected that its receive loop has ended, and has
// read every answer it will read.
func LinkState(c *Client) zk.State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn.State()
}

// ReplacedConnectionConnects has a connection of the generation before the
// client's current one read a connect response of session id, as one that
// the client replaced after losing that session may do before its Close
// ends it, if the server kept the session.
func ReplacedConnectionConnects(c *Client, id int64) {
	c.mu.Lock()
	gen, conn := c.gen-1, c.conn
	c.mu.Unlock()
	hooks := c.connHooks(gen, func() *zk.Conn { return conn })
	hooks.Connected(wire.ConnectReply{SessionID: id, Timeout: c.SessionTimeout()})
}

// SetUnreachableLogEvery makes c warn that it cannot connect at most once
// every d instead of every 10 s, from its next failure on.
func SetUnreachableLogEvery(c *Client, d time.Duration) {
	c.reach.mu.Lock()
	defer c.reach.mu.Unlock()
	c.reach.every = d
}
