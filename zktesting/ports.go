package zktesting

import (
	"errors"
	"fmt"
	"net"
	"sync"
)

// freePorts returns n distinct ports that the kernel handed out free on
// 127.0.0.1, each held by a listener until release is called: the caller
// binds what else it needs first (an ensemble's peer proxies), so that none
// of it takes one of these. Another process may still take one between
// release and the server's bind; see withFreshPorts.
func freePorts(n int) (ports []int, release func(), err error) {
	listeners := make([]net.Listener, 0, n)
	release = sync.OnceFunc(func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	})
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			release()
			return nil, nil, fmt.Errorf("zktesting: pick a free port: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, release, nil
}

// portFree returns ErrPortInUse when another process listens on addr. The
// readiness probe cannot tell: it would reach that other server and report
// success for a process that is exiting because it could not bind.
func portFree(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrPortInUse, addr, err)
	}
	if err := l.Close(); err != nil {
		return fmt.Errorf("zktesting: %w", err)
	}
	return nil
}

// portAttempts is how many sets of free ports a start picks before it
// gives up on ErrPortInUse.
const portAttempts = 3

// withFreshPorts calls start until it no longer fails with ErrPortInUse,
// up to portAttempts times, when o leaves the ports to be picked free:
// between the pick and the server's bind, another process (or another
// server of this one) may take a port, and new ones will do. A port the
// caller chose (WithPort) is tried once.
func withFreshPorts[T any](o options, start func() (T, error)) (T, error) {
	for attempt := 1; ; attempt++ {
		v, err := start()
		if err == nil || o.port != 0 || attempt == portAttempts || !errors.Is(err, ErrPortInUse) {
			return v, err
		}
		o.logger.Warn("zktesting: a port picked free was taken before the server bound it; picking others", "err", err)
	}
}
