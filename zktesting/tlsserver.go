package zktesting

import (
	"context"
	"crypto/tls"
	"encoding/pem"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// WithTLS gives the server (each member of an ensemble) a TLS client port
// beside its plain one, as ZooKeeper's secureClientPort: Netty's
// connection factory (NettyServerCnxnFactory), a server certificate for
// 127.0.0.1 and localhost, client certificates required
// (ssl.clientAuth=need) and ZooKeeper's x509 authentication provider on,
// so that a client's certificate is its identity ("x509" ACLs). zktesting
// makes the certificate authority and the certificates (crypto/x509) and
// hands the server PEM key and trust stores, which ZooKeeper reads as
// they are. Server.TLSAddr and Ensemble.TLSConnectString give the TLS
// address; Server.TLS and Ensemble.TLS the authority, whose ClientConfig
// is what a client needs. The plain port (Addr) stays, for tools and
// readiness probes; Start returns once both serve. The default is no TLS
// port.
func WithTLS() Option {
	return func(o *options) {
		if o.tls == nil {
			o.tls = NewTLS()
		}
	}
}

// tlsConfig is what zoo.cfg says about the TLS port.
type tlsConfig struct {
	port       int
	keyStore   string // PEM: the server's key and certificate
	trustStore string // PEM: the CA its clients' certificates must chain to
}

// render returns tlsConfig's lines of zoo.cfg. The ssl.* and
// authProvider.* keys become zookeeper.* system properties, where the
// server reads them.
func (c *tlsConfig) render() string {
	if c == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "secureClientPort=%d\nsecureClientPortAddress=127.0.0.1\n", c.port)
	b.WriteString("serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory\n")
	fmt.Fprintf(&b, "ssl.keyStore.location=%s\nssl.keyStore.type=PEM\n", c.keyStore)
	fmt.Fprintf(&b, "ssl.trustStore.location=%s\nssl.trustStore.type=PEM\n", c.trustStore)
	b.WriteString("ssl.clientAuth=need\n")
	b.WriteString("authProvider.x509=org.apache.zookeeper.server.auth.X509AuthenticationProvider\n")
	return b.String()
}

// setUpTLS writes the server's key and trust stores in dir and returns the
// TLS port's configuration, on a port picked free, and the class path
// with what Netty's TLS needs.
func setUpTLS(t *TLS, dir string, cp []string) (*tlsConfig, []string, error) {
	ports, release, err := freePorts(1)
	if err != nil {
		return nil, nil, err
	}
	release()
	c := &tlsConfig{port: ports[0], keyStore: filepath.Join(dir, "keystore.pem"), trustStore: filepath.Join(dir, "truststore.pem")}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("zktesting: %w", err)
	}
	if err := os.WriteFile(c.keyStore, pemOf(t.serverCertificate()), 0o600); err != nil {
		return nil, nil, fmt.Errorf("zktesting: %w", err)
	}
	if err := os.WriteFile(c.trustStore, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: t.ca.Raw}), 0o644); err != nil {
		return nil, nil, fmt.Errorf("zktesting: %w", err)
	}
	return c, nettyClasspath(cp), nil
}

// nettyJars are the Netty jars TLS needs that Debian's zookeeper.jar
// does not name in its manifest: without netty-codec the server starts
// and answers on its plain port, but closes every TLS connection at once.
var nettyJars = []string{"netty-codec.jar", "netty-resolver.jar", "netty-transport-native-unix-common.jar"}

// nettyClasspath returns cp with the nettyJars found next to its first
// jar or in Debian's Java directory.
func nettyClasspath(cp []string) []string {
	for _, name := range nettyJars {
		for _, d := range []string{filepath.Dir(cp[0]), debianJavaDir} {
			jar := filepath.Join(d, name)
			if _, err := os.Stat(jar); err == nil && !slices.Contains(cp, jar) {
				cp = append(cp, jar)
				break
			}
		}
	}
	return cp
}

// TLSAddr returns the TLS client address, "127.0.0.1:PORT", or "" for a
// server started without WithTLS. It stays the same across Stop and
// Restart.
func (s *Server) TLSAddr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.tls == nil {
		return ""
	}
	return addrOf(s.cfg.tls.port)
}

// TLS returns the authority of a server started WithTLS, or nil.
func (s *Server) TLS() *TLS { return s.tls }

// TLSAddrs returns the members' TLS client addresses, in member order,
// or nil for an ensemble started without WithTLS.
func (e *Ensemble) TLSAddrs() []string {
	addrs := make([]string, 0, len(e.members))
	for _, m := range e.members {
		if m.TLSAddr() == "" {
			return nil
		}
		addrs = append(addrs, m.TLSAddr())
	}
	return addrs
}

// TLSConnectString returns the members' TLS addresses, comma-separated, or
// "" for an ensemble started without WithTLS.
func (e *Ensemble) TLSConnectString() string { return strings.Join(e.TLSAddrs(), ",") }

// TLS returns the authority of an ensemble started WithTLS, which every
// member shares, or nil.
func (e *Ensemble) TLS() *TLS { return e.members[0].tls }

// awaitTLSReady returns once the server's TLS port gives a client with a
// certificate of the authority a session: the plain port's readiness says
// nothing of it (see nettyJars).
func (s *Server) awaitTLSReady(ctx context.Context, p *process) error {
	if s.tls == nil {
		return nil
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultStartTimeout)
		defer cancel()
	}
	addr := s.TLSAddr()
	cfg := s.tls.ClientConfig("zktesting-probe")
	for {
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		err := probeTLSSession(pctx, addr, cfg, s.log)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("%w: pid %d on %s: %v; log tail:\n%s", ErrExited, p.pid(), addr, p.err, logTail(s.logPath, 30))
		case <-ctx.Done():
			return fmt.Errorf("%w: TLS port %s: %w (last probe: %v); log tail:\n%s", ErrNotReady, addr, ctx.Err(), err, logTail(s.logPath, 30))
		case <-time.After(probeInterval):
		}
	}
}

// probeTLSSession opens a session over TLS on addr and closes it.
func probeTLSSession(ctx context.Context, addr string, cfg *tls.Config, log *slog.Logger) error {
	dialer := func(network, address string, timeout time.Duration) (net.Conn, error) {
		d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: timeout}, Config: cfg}
		hctx, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		return d.DialContext(hctx, network, address)
	}
	return probeSession(ctx, addr, log, dialer)
}
