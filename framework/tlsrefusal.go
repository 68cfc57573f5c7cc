package framework

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"
)

// tlsRefusal counts the servers that refused a TLS handshake on its
// configuration since the last handshake that succeeded, and gives up
// once every server has, before any handshake ever succeeded (see
// WithTLS).
type tlsRefusal struct {
	servers int         // in the connect string
	refused func(error) // called once, on giving up

	mu     sync.Mutex
	ever   bool             // a handshake has succeeded
	by     map[string]error // address → its refusal, since the last success
	giveUp error            // non-nil once given up
}

func newTLSRefusal(servers int, refused func(error)) *tlsRefusal {
	return &tlsRefusal{servers: max(servers, 1), refused: refused, by: make(map[string]error)}
}

// final returns the error the client gave up with, or nil.
func (r *tlsRefusal) final() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.giveUp
}

// succeeded records a handshake that succeeded.
func (r *tlsRefusal) succeeded() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ever = true
	clear(r.by)
}

// failed records a failed handshake with addr and returns its error: one
// wrapping ErrTLSHandshake when the server refused it on its
// configuration.
func (r *tlsRefusal) failed(addr, name string, err error) error {
	if !refusedHandshake(err) {
		return fmt.Errorf("tls handshake: %w", err)
	}
	refusal := fmt.Errorf("%w: with %s (server name %q): %w", ErrTLSHandshake, addr, name, err)
	r.mu.Lock()
	r.by[addr] = refusal
	giveUp := !r.ever && r.giveUp == nil && len(r.by) >= r.servers
	if giveUp {
		r.giveUp = refusal
	}
	r.mu.Unlock()
	if giveUp {
		r.refused(refusal)
	}
	return refusal
}

// refuseTLS is called once every server has refused the client's TLS
// handshake before its first session: WaitConnected returns the refusal,
// as it returns a refused credential.
func (c *Client) refuseTLS(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.auth.refused != nil {
		return
	}
	c.auth.refused = err
	c.log.Error("every server refused the TLS handshake; the client gives up", "err", err)
	closeOnce(c.authRefused)
}

// serverNames maps the addresses the client dials back to the host names
// of the connect string they were resolved from: go-zookeeper (and the
// client's host provider) dial resolved addresses, and a certificate
// names the host.
type serverNames struct {
	servers []string // host:port, as in the connect string

	mu       sync.Mutex
	resolved bool
	names    map[string]string // address → host
}

func newServerNames(servers []string) *serverNames {
	return &serverNames{servers: servers, names: make(map[string]string)}
}

// of returns the host name to check addr's certificate against: the
// connect string's host it resolves from, or else addr's own host.
func (s *serverNames) of(addr string, timeout time.Duration) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if name, ok := s.names[addr]; ok {
		return name
	}
	if !s.resolved {
		s.resolved = true
		s.resolve(max(timeout, 3*time.Second))
		if name, ok := s.names[addr]; ok {
			return name
		}
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return host
}

// resolve maps the addresses of every server's host name to it. Called
// with s.mu held: the dials it holds up are the ones that need it.
func (s *serverNames) resolve(timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for _, server := range s.servers {
		host, port, err := net.SplitHostPort(server)
		if err != nil {
			continue
		}
		if net.ParseIP(host) != nil {
			s.names[server] = host
			continue
		}
		addrs, err := net.DefaultResolver.LookupHost(ctx, host)
		if err != nil {
			continue
		}
		for _, a := range addrs {
			s.names[net.JoinHostPort(a, port)] = host
		}
	}
}
