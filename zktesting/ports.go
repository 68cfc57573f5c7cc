package zktesting

import (
	"fmt"
	"net"
)

// freePorts returns n distinct ports that the kernel handed out free on
// 127.0.0.1. All listeners stay open until every port is picked, so the n
// ports differ; another process may still take one before the server binds
// it, a race that is rare on a test machine.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("zktesting: pick a free port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
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
