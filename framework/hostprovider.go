package framework

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// hostProvider hands go-zookeeper the servers to try, in turn. Unlike
// go-zookeeper's default, which pauses a second before reconnecting to the
// server it was last connected to (with a single server, before every
// reconnect), it pauses only once every server has failed since the last
// successful connection: a dropped connection is re-established at once.
type hostProvider struct {
	mu       sync.Mutex
	servers  []string
	next     int
	failures int // attempts since the last successful connection
}

// Init resolves the servers' names to addresses, once.
func (hp *hostProvider) Init(servers []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var resolved []string
	var failures []error
	for _, s := range servers {
		host, port, err := net.SplitHostPort(s)
		if err != nil {
			return fmt.Errorf("%w: %q: %w", ErrInvalidAddress, s, err)
		}
		addrs, err := net.DefaultResolver.LookupHost(ctx, host)
		if err != nil {
			// A name that does not resolve is left out, as go-zookeeper does.
			failures = append(failures, err)
			continue
		}
		for _, a := range addrs {
			resolved = append(resolved, net.JoinHostPort(a, port))
		}
	}
	if len(resolved) == 0 {
		return fmt.Errorf("%w: no server address could be resolved: %w", ErrInvalidAddress, errors.Join(failures...))
	}
	hp.servers = resolved
	return nil
}

// Len returns the number of addresses.
func (hp *hostProvider) Len() int {
	hp.mu.Lock()
	defer hp.mu.Unlock()
	return len(hp.servers)
}

// Next returns the next address, and whether go-zookeeper should pause
// before trying it: every address has failed since the last connection.
func (hp *hostProvider) Next() (string, bool) {
	hp.mu.Lock()
	defer hp.mu.Unlock()
	server := hp.servers[hp.next]
	hp.next = (hp.next + 1) % len(hp.servers)
	hp.failures++
	return server, hp.failures > len(hp.servers)
}

// Connected records a successful connection.
func (hp *hostProvider) Connected() {
	hp.mu.Lock()
	defer hp.mu.Unlock()
	hp.failures = 0
}

// defaultPort is ZooKeeper's client port, for an address without one (as
// Curator and ZooKeeper's own client read it).
const defaultPort = "2181"

// serverAddress checks a server address before anything is dialled and
// returns it as host:port: a host, and a port from 1 to 65535 (2181 when
// none is given). A chroot suffix ("host:2181/app") is refused: the client
// takes its namespace from WithNamespace.
func serverAddress(s string) (string, error) {
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return "", fmt.Errorf("%w: %q: a chroot in the connect string is not supported; use WithNamespace(%q)",
			ErrInvalidAddress, s, s[i:])
	}
	host, port, err := net.SplitHostPort(s)
	var addrErr *net.AddrError
	if errors.As(err, &addrErr) && addrErr.Err == "missing port in address" {
		host, port, err = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"), defaultPort, nil
	}
	if err != nil {
		return "", fmt.Errorf("%w: %q: %w", ErrInvalidAddress, s, err)
	}
	n, err := strconv.Atoi(port)
	switch {
	case host == "":
		return "", fmt.Errorf("%w: %q has no host", ErrInvalidAddress, s)
	case err != nil || n < 1 || n > 65535:
		return "", fmt.Errorf("%w: %q: port must be a number from 1 to 65535", ErrInvalidAddress, s)
	}
	return net.JoinHostPort(host, port), nil
}
