package framework

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"
)

// unreachableLogEvery is the least time between two warnings that the
// client cannot connect: a call blocked on the connection is never silent,
// and a long outage does not flood the log.
const unreachableLogEvery = 10 * time.Second

// reach remembers why the client last failed to reach a server, for
// errors that say so and for rate-limited warnings.
type reach struct {
	mu      sync.Mutex
	addr    string
	err     error
	warned  time.Time
	every   time.Duration // between warnings; 0: unreachableLogEvery (a test's shorter one)
	failing bool          // no connection since the last failure
}

// failed records a failed dial of addr and warns, at most once every
// unreachableLogEvery.
func (r *reach) failed(log *slog.Logger, servers []string, addr string, err error) {
	r.mu.Lock()
	r.addr, r.err, r.failing = addr, err, true
	every := r.every
	if every == 0 {
		every = unreachableLogEvery
	}
	warn := time.Since(r.warned) >= every
	if warn {
		r.warned = time.Now()
	}
	r.mu.Unlock()
	if warn {
		log.Warn("cannot connect to ZooKeeper; still trying", "servers", strings.Join(servers, ","), "server", addr, "err", err)
	}
}

// connected records that a connection is up.
func (r *reach) connected() {
	r.mu.Lock()
	r.failing = false
	r.mu.Unlock()
}

// last returns the last failure while no connection has succeeded since.
func (r *reach) last() (addr string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.failing {
		return "", nil
	}
	return r.addr, r.err
}

// recordDials wraps dial, the dialer of the connection of generation gen,
// so that its failures are recorded and its links known to Close. A
// failure once the client has given up (see gaveUp) is not recorded: the
// refusal was logged, at error level, and the client is not still trying.
func (c *Client) recordDials(gen uint64, dial func(network, address string, timeout time.Duration) (net.Conn, error)) func(network, address string, timeout time.Duration) (net.Conn, error) {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		conn, err := dial(network, address, timeout)
		if err != nil {
			// A dial that the client's Close ended (see saslDialer, tlsDialer)
			// is no failure either. The refusal that gives up is told before
			// its dial returns, so the check sees it.
			if !errors.Is(err, ErrClosed) && !c.gaveUp() {
				c.reach.failed(c.log, c.serverList(), address, err)
			}
			return conn, err
		}
		if err := c.calls.dialed(gen, conn); err != nil {
			return nil, err
		}
		return conn, nil
	}
}

// gaveUp reports whether the server refused the client in a way that
// retrying will not cure (a SASL exchange, every TLS handshake, a
// credential of WithAuth), a refusal logged at error level when it came.
func (c *Client) gaveUp() bool {
	select {
	case <-c.authRefused:
		return true
	default:
		return false
	}
}

// IsConnected reports whether the client is connected to a server now.
func (c *Client) IsConnected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.connected && !c.closed
}

// IsClosed reports whether Close has been called.
func (c *Client) IsClosed() bool { return c.isClosed() }

// ConnectionError returns nil while the client is connected, and otherwise
// an error that wraps ErrNotConnected, names the servers, and wraps the
// last failure to reach one of them, if the client has seen one since it
// was last connected (dials through a dialer of WithZKOptions are not
// seen), or the server's refusal of a credential (ErrAuthFailed). After
// Close it returns ErrClosed.
func (c *Client) ConnectionError() error {
	c.mu.Lock()
	connected, closed, refused := c.connected, c.closed, c.auth.refused
	c.mu.Unlock()
	switch {
	case closed:
		return ErrClosed
	case connected:
		return nil
	case refused != nil:
		return fmt.Errorf("%w: %w", ErrNotConnected, refused)
	}
	servers := strings.Join(c.serverList(), ",")
	if last := c.lastAttempt(); last != nil {
		return fmt.Errorf("%w: servers %s; %w", ErrNotConnected, servers, last)
	}
	return fmt.Errorf("%w: servers %s", ErrNotConnected, servers)
}
