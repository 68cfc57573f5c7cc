package framework

import (
	"context"
	"errors"
	"fmt"
	"net"
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
	failures int  // attempts since the last successful connection
	updated  bool // servers came from the ensemble's configuration: Init keeps them
}

// Init resolves the servers' names to addresses, once. A provider whose
// list the ensemble's configuration has set already keeps that list.
func (hp *hostProvider) Init(servers []string) error {
	hp.mu.Lock()
	updated := hp.updated
	hp.mu.Unlock()
	if updated {
		return nil // the connect string's names need not even resolve any more
	}
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
	hp.mu.Lock()
	defer hp.mu.Unlock()
	if !hp.updated {
		hp.servers = resolved
	}
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
