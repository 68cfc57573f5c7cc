package zktesting

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// freePorts returns n distinct free ports on 127.0.0.1, each held by a
// listener until release is called: the caller binds what else it needs
// first (an ensemble's peer proxies), so that none of it takes one of these.
//
// The ports come from below the kernel's ephemeral range where there is
// room (see fixedPortRange): the kernel gives every outgoing connection a
// source port from that range, so a server's port picked there may be taken
// by some client's connection while the server is stopped for a restart,
// and the restart fails on a port it owns. Another process may still bind
// one between release and the server's bind; see withFreshPorts.
func freePorts(n int) (ports []int, release func(), err error) {
	listeners := make([]net.Listener, 0, n)
	release = sync.OnceFunc(func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	})
	low, high := fixedPortRange()
	for range n {
		l, err := listenFree(low, high)
		if err != nil {
			release()
			return nil, nil, fmt.Errorf("zktesting: pick a free port: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, release, nil
}

// listenFree listens on a random free port in [low, high), or on one the
// kernel picks when the range is empty or every try finds a port taken.
func listenFree(low, high int) (net.Listener, error) {
	for try := 0; high > low && try < 64; try++ {
		port := low + rand.IntN(high-low)
		if l, err := net.Listen("tcp", addrOf(port)); err == nil {
			return l, nil
		}
	}
	return net.Listen("tcp", "127.0.0.1:0")
}

// Ports below minFixedPort are left to well-known services.
const minFixedPort = 10000

// fixedPortRange returns the ports between minFixedPort and the start of
// the kernel's ephemeral range (Linux's ip_local_port_range), an empty
// range where that cannot be read or leaves no room.
func fixedPortRange() (low, high int) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, 0
	}
	fields := strings.Fields(string(b))
	if len(fields) != 2 {
		return 0, 0
	}
	ephemeralLow, err := strconv.Atoi(fields[0])
	if err != nil || ephemeralLow-minFixedPort < 1000 {
		return 0, 0
	}
	return minFixedPort, ephemeralLow
}

// addrOf returns port's address on 127.0.0.1.
func addrOf(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

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

// portFreeWithin is portFree, tried again until wait has passed: a port
// a server owns may be held for a moment by a connection of another
// process (a source port the kernel picked, or a dial that connected to
// itself), and a restart on that port would otherwise fail for nothing.
func portFreeWithin(addr string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		err := portFree(addr)
		if err == nil || !errors.Is(err, ErrPortInUse) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
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
