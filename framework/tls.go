package framework

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/zkrecipes/zkrecipes/framework/internal/wire"
)

// WithTLS makes the client speak TLS to the servers (ZooKeeper's
// secureClientPort), with cfg: the CAs that sign the servers' certificates
// (RootCAs), the client's own certificate for a server that asks for one
// (Certificates; ZooKeeper's x509 authentication provider takes its
// subject as the client's identity) and, if need be, the server name.
// The client needs no dialer of its own: it dials, runs the handshake and
// wraps the TLS connection as it wraps a plain one, so the session lease,
// the watches and the requests of ZooKeeper 3.6 work unchanged. A dialer
// of WithZKOptions (zk.WithDialer) still makes the TCP connection, and TLS
// runs over it.
//
// A cfg without ServerName is given, per connection, the host of the
// connect string the address came from ("zk1.example.com" for a server
// given as zk1.example.com:2281): the client dials resolved addresses, so
// without it the server's certificate would be checked against an IP
// address. An address the connect string does not name is checked as its
// IP address.
//
// A handshake refused on a certificate (the server's is not signed by a CA
// of cfg, does not name the host, has expired; or the server refuses the
// client's) is a mistake of configuration that retrying will not cure.
// Until the client's first session, once each server of the connect string
// has refused a handshake so, with no handshake succeeding in between,
// the client gives up: Connect and WaitConnected return at once with an
// error wrapping ErrTLSHandshake and the cause (errors.As finds the
// x509.UnknownAuthorityError or x509.HostnameError), the client dials no
// more, and the caller should Close it. So "not forever" means one refusal
// per server, not a number of seconds; a server that cannot be reached at
// all is waited for, as without TLS, until the caller's deadline. After a
// first session, a refused handshake counts as an unreachable server: the
// client keeps trying, and the session is Lost after its timeout, as when
// the network fails; the refusal is logged.
//
// The ensemble's configuration (/zookeeper/config) names the plain client
// ports only, so the client keeps the connect string's TLS addresses: the
// ensemble tracker does not follow a configuration that names none of
// them (see WithoutEnsembleTracking).
//
// Each handshake is bounded by a third of the session timeout, as the
// connect request's answer is. cfg is cloned: later changes to it have no
// effect. A nil cfg is rejected with ErrInvalidOption. Default: no TLS.
func WithTLS(cfg *tls.Config) Option {
	return func(c *config) error {
		if cfg == nil {
			return fmt.Errorf("%w: nil TLS config", ErrInvalidOption)
		}
		c.tls = cfg.Clone()
		return nil
	}
}

// tlsDialer runs a TLS handshake over each connection base makes.
type tlsDialer struct {
	base    wire.DialFunc
	cfg     *tls.Config
	names   *serverNames
	refusal *tlsRefusal
	bound   time.Duration   // of one handshake
	closed  <-chan struct{} // closed by the client's Close
}

// newTLSDialer returns the dialer of a client of WithTLS. refused is
// called once, when the client gives up (see WithTLS); closed is closed
// by the client's Close.
func newTLSDialer(base wire.DialFunc, cfg *tls.Config, servers []string, bound time.Duration, refused func(error), closed <-chan struct{}) wire.DialFunc {
	if base == nil {
		base = net.DialTimeout
	}
	d := &tlsDialer{
		base:    base,
		cfg:     cfg,
		names:   newServerNames(servers),
		refusal: newTLSRefusal(len(servers), refused),
		bound:   bound,
		closed:  closed,
	}
	return d.dial
}

// dial connects to addr and runs the handshake, within the dial timeout
// and the handshake bound. Once the client has given up, a dial dials no
// more: it waits for the client's Close, or go-zookeeper would call it
// again every second until then. (The server-capability probe dials a
// server the client is connected to: never one after giving up.)
func (d *tlsDialer) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	if d.refusal.final() != nil {
		<-d.closed
		return nil, ErrClosed
	}
	raw, err := d.base(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	cfg := d.cfg
	if cfg.ServerName == "" {
		cfg = cfg.Clone()
		cfg.ServerName = d.names.of(addr, timeout)
	}
	conn := tls.Client(raw, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), d.bound)
	defer cancel()
	if err := conn.HandshakeContext(ctx); err != nil {
		_ = raw.Close()
		return nil, d.refusal.failed(addr, cfg.ServerName, err)
	}
	if conn.ConnectionState().Version < tls.VersionTLS13 {
		// TLS 1.2: the server has judged the client's certificate by now.
		d.refusal.succeeded()
		return conn, nil
	}
	// TLS 1.3: a server that refuses the client's certificate says so only
	// on the first read (see tlsFirstRead).
	return &tlsFirstRead{Conn: conn, addr: addr, name: cfg.ServerName, refusal: d.refusal}, nil
}

// tlsFirstRead reports the outcome of a TLS 1.3 connection's first read:
// a refusal of the client's certificate arrives as an alert there.
type tlsFirstRead struct {
	net.Conn
	addr, name string
	refusal    *tlsRefusal
	done       bool // on go-zookeeper's receive goroutine only
}

// Read reads, and judges the first read's outcome.
func (c *tlsFirstRead) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if !c.done && (n > 0 || err != nil) {
		c.done = true
		if n > 0 {
			c.refusal.succeeded()
		} else if refusedHandshake(err) {
			err = c.refusal.failed(c.addr, c.name, err)
		}
	}
	return n, err
}

// refusedHandshake tells a handshake refused on its configuration (a
// certificate either side would not accept, a version or cipher suite the
// other does not speak, a server that does not speak TLS) from one cut
// off by the network, which a later try may cure.
func refusedHandshake(err error) bool {
	var verify *tls.CertificateVerificationError
	var header tls.RecordHeaderError
	var op *net.OpError
	switch {
	case errors.As(err, &verify), errors.As(err, &header):
		return true
	case errors.As(err, &op) && op.Op == "remote error":
		return true // an alert from the server: crypto/tls's own Op for it
	}
	return false
}
