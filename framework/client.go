package framework

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework/internal/lease"
	"github.com/zkrecipes/zkrecipes/framework/internal/watches"
	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// Client is a ZooKeeper client for recipes: one go-zookeeper connection and
// its session, connection states with listeners, retries, protected creates,
// a namespace and ACLs. It is safe for concurrent use, and meant to be shared
// by every recipe of a process.
type Client struct {
	cfg       config
	servers   []string
	log       *slog.Logger
	events    *eventQueue
	listeners *listenerSet
	tap       *wire.WriteTap
	carrier   *wire.Carrier
	bound     wire.BoundWrites // bound writes on their way, refused in another session
	watches   *watches.Table
	leases    *lease.Book
	clock     lease.Clock // the lease book's too
	reach     reach
	baseDial  wire.DialFunc // the caller's own dialer (zk.WithDialer), wrapped; nil: the default
	ensemble  ensembleHosts // the servers dialled, as the ensemble's configuration says

	// life ends background work (the state loop, clean-ups) on Close.
	life context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu          sync.Mutex
	conn        *zk.Conn
	gen         uint64        // generation of conn; events of older ones are ignored
	auth        authState     // of the credentials on conn
	authRefused chan struct{} // closed when the server refuses a credential
	connected   bool
	connectedCh chan struct{} // closed while connected; replaced on disconnect
	state       ConnectionState
	session     *Session // nil before the first session and after Lost
	suspension  suspension
	granted     time.Duration // the session timeout the server granted on conn; 0 before it says
	closed      bool
	seams       *seams // a test's hold on background work; nil outside tests

	calls callGate // the calls under way on conn, which Close waits for

	// liveGen is gen, read by the wire's hooks without mu (see connHooks).
	liveGen atomic.Uint64

	holdsOnce    sync.Once
	holdRegistry *holdFanout // see holds

	loggers sync.Map // component name → *slog.Logger (Hooks.Logger)
	shared  sync.Map // recipes' key → value (Hooks.Shared)
}

// New validates the servers and options, starts connecting in the
// background and returns at once; use WaitConnected to wait for a session.
// servers are "host:port" strings, or connect strings as Curator and
// ZooKeeper's client take them, whole ("zk1:2181,zk2:2181/app") or split
// at the commas: the elements are joined with commas and read by
// ParseConnectString. A host without a port means 2181. A chroot ("/app"
// after the last server) becomes the client's namespace, as if given with
// WithNamespace; a chroot and a different WithNamespace fail with an error
// wrapping ErrNamespaceConflict.
func New(servers []string, opts ...Option) (*Client, error) {
	addrs, cfg, err := newConfig(servers, opts)
	if err != nil {
		return nil, err
	}
	clk := cfg.clock
	if clk == nil {
		clk = lease.NewMonoClock()
	}
	life, stop := context.WithCancel(context.Background())
	c := &Client{
		cfg:         cfg,
		servers:     addrs,
		log:         cfg.logger.With("component", "zkrecipes/framework"),
		events:      newEventQueue(),
		listeners:   newListenerSet(),
		tap:         wire.NewWriteTap(),
		leases:      lease.NewBook(clk, cfg.leaseMargin, cfg.serverLag),
		clock:       clk,
		life:        life,
		stop:        stop,
		connectedCh: make(chan struct{}),
		authRefused: make(chan struct{}),
	}
	c.watches = watches.New(func(ev zk.Event) { c.holds().nodeEvent(ev) }, func(k watches.Key) { c.removeServerWatch(k) })
	if c.baseDial, err = userDialer(cfg.zkOptions); err != nil {
		stop()
		return nil, err
	}
	if cfg.tls != nil {
		c.baseDial = newTLSDialer(c.baseDial, cfg.tls, addrs, cfg.sessionTimeout/wire.HandshakeShare, c.refuseTLS, life.Done())
	}
	c.carrier = wire.NewCarrier(wire.NewServerCaps(c.baseDial, cfg.connectionTimeout))
	if err := c.dial(); err != nil {
		stop()
		return nil, err
	}
	c.startBackground()
	return c, nil
}

// newConfig reads the connect string and applies opts, checking what
// New refuses before anything is dialled.
func newConfig(servers []string, opts []Option) (addrs []string, cfg config, err error) {
	if len(servers) == 0 {
		return nil, cfg, ErrNoServers
	}
	addrs, chroot, err := ParseConnectString(strings.Join(servers, ","))
	if err != nil {
		return nil, cfg, err
	}
	cfg = defaultConfig()
	for _, opt := range opts {
		if opt == nil {
			return nil, cfg, fmt.Errorf("%w: nil option", ErrInvalidOption)
		}
		if err := opt(&cfg); err != nil {
			return nil, cfg, err
		}
	}
	if cfg.namespace, err = chrootNamespace(chroot, cfg.namespace); err != nil {
		return nil, cfg, err
	}
	if !lease.Keepable(cfg.sessionTimeout, cfg.leaseMargin, cfg.serverLag) {
		return nil, cfg, fmt.Errorf("%w: a session timeout of %v is too short for a server lag of %v: the session lease "+
			"(T·(1−ε) − T/3 − lag) would run out between two pings", ErrInvalidOption, cfg.sessionTimeout, cfg.serverLag)
	}
	return addrs, cfg, nil
}

// startBackground starts the client's own goroutines: the state loop and,
// unless turned off, the ensemble tracker.
func (c *Client) startBackground() {
	if c.cfg.observer != nil {
		c.observeStates(c.cfg.observer) // before the first state, so that none is missed
	}
	c.wg.Add(1)
	// Ends when Close cancels life.
	go c.runStates()
	if !c.cfg.untracked {
		c.wg.Add(1)
		// Ends when Close cancels life.
		go func() {
			defer c.wg.Done()
			c.trackEnsemble()
		}()
	}
}

// WaitConnected blocks until the client is connected, the context ends,
// the server refuses a credential of WithAuth (an error wrapping
// ErrAuthFailed) or the client is closed (ErrClosed). When ctx ends, the
// error wraps ErrUnreachable, ErrNotConnected, the context's error and the
// last failure to reach a server, and says each once: the servers, why the
// wait ended (the context's cause, if it has one: see
// context.WithTimeoutCause) and the last failure.
func (c *Client) WaitConnected(ctx context.Context) error {
	for {
		c.mu.Lock()
		closed, connected, ch, refused := c.closed, c.connected, c.connectedCh, c.auth.refused
		c.mu.Unlock()
		switch {
		case closed:
			return ErrClosed
		case connected:
			return nil
		case refused != nil:
			return refused
		}
		select {
		case <-ch:
		case <-c.authRefused:
		case <-ctx.Done():
			return c.unreachable(ctx)
		case <-c.life.Done():
			return ErrClosed
		}
	}
}

// State returns the last state delivered, or 0 before the first connection.
func (c *Client) State() ConnectionState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// Session returns the current session, or nil while the client has none
// (before the first connection, and between Lost and the next session).
func (c *Client) Session() *Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

// AddListener delivers every later state change to l, in order, on a
// goroutine of its own, until the returned function is called or the client
// is closed.
func (c *Client) AddListener(l Listener) (remove func()) {
	return c.listeners.add(l)
}

// Namespace returns the namespace, or "" if there is none.
func (c *Client) Namespace() string { return c.cfg.namespace }

// SessionTimeout returns the session timeout the server granted (it bounds
// the one asked for, WithSessionTimeout, by its minSessionTimeout and
// maxSessionTimeout), or the one asked for before the server has answered.
// The client reads the grant from the server's connect response, for each
// new connection, through a dialer of the caller's own too (zk.WithDialer
// in WithZKOptions), whose connections it wraps. It is how long the client stays Suspended before
// it declares the session Lost: the server expires the session after that
// long without hearing from the client, and may give its locks to others.
func (c *Client) SessionTimeout() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionTimeoutLocked()
}

// sessionTimeoutLocked is SessionTimeout for callers holding c.mu.
func (c *Client) sessionTimeoutLocked() time.Duration {
	if c.granted > 0 {
		return c.granted
	}
	return c.cfg.sessionTimeout
}

// Logger returns the client's logger, for recipes that log under it.
func (c *Client) Logger() *slog.Logger { return c.log }

// Close ends the session, stops every goroutine the client started and
// waits for them. Listeners get nothing more. Holders learn of the end
// through their Session's Lost channel. Close is idempotent. Unlike a
// recipe's Close(ctx), it takes no ctx: it sends nothing it waits for
// beyond the connection's own bound, then waits only for the client's
// goroutines, which end with it (a listener's call under way finishes
// first), and it must work under a plain defer at the end of main.
//
// A call made once Close has begun fails with ErrClosed. Calls already on
// their way get about a second to be answered; then their link is cut, so
// that they end with a connection error, before go-zookeeper's connection
// is closed: its own Close would fail them at once and still write their
// late answers into the results their callers read. Close so takes up to
// a few seconds with calls under way on a link that does not answer.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	conn, session := c.conn, c.session
	c.mu.Unlock()

	c.stop()
	c.calls.drain() // no call is under way when go-zookeeper's Close runs
	conn.Close()
	c.calls.shutDown()
	c.watches.Close(ErrClosed)
	if session != nil {
		session.abandon()
	}
	c.listeners.close()
	c.wg.Wait()
	return nil
}

// spawn runs fn on a goroutine that Close waits for, unless the client is
// closed already. Callers must not hold c.mu.
func (c *Client) spawn(fn func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		fn()
	}()
	return true
}

// isClosed reports whether Close was called.
func (c *Client) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}
