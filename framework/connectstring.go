package framework

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
)

// defaultPort is ZooKeeper's client port, for an address without one (as
// Curator and ZooKeeper's own client read it).
const defaultPort = "2181"

// ParseConnectString reads a connect string as ZooKeeper's client and
// Curator read it: servers separated by commas, each host or host:port
// (an IPv6 address in brackets, "[::1]:2181"; no port means 2181), and
// an optional chroot after the last server ("zk1:2181,zk2:2181/app").
// It returns the servers as host:port and the chroot ("" when there is
// none, or when it is "/"). Spaces around a server and empty parts
// ("zk1,,zk2,") are skipped, as ZooKeeper skips them. An error wraps
// ErrInvalidAddress and names the part at fault: a string with no
// server, a bad host or port, or a chroot that is not a valid path (it
// also wraps ErrInvalidPath) or that does not come last.
func ParseConnectString(s string) (servers []string, chroot string, err error) {
	hosts, chroot, hasChroot := strings.Cut(s, "/")
	if hasChroot {
		if chroot, err = parseChroot(chroot); err != nil {
			return nil, "", err
		}
	}
	for _, part := range strings.Split(hosts, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		addr, err := serverAddress(part)
		if err != nil {
			return nil, "", err
		}
		servers = append(servers, addr)
	}
	if len(servers) == 0 {
		return nil, "", fmt.Errorf("%w: connect string %q names no server", ErrInvalidAddress, s)
	}
	return servers, chroot, nil
}

// parseChroot checks the part of a connect string after its first '/'
// and returns the chroot as a path, "" for the root.
func parseChroot(rest string) (string, error) {
	chroot := "/" + strings.TrimSpace(rest)
	if strings.Contains(chroot, ",") {
		return "", fmt.Errorf("%w: chroot %q: a chroot comes once, after the last server (zk1:2181,zk2:2181/app)",
			ErrInvalidAddress, chroot)
	}
	if chroot == "/" {
		return "", nil
	}
	if err := zkpath.Validate(chroot); err != nil {
		return "", fmt.Errorf("%w: chroot: %w", ErrInvalidAddress, err)
	}
	return chroot, nil
}

// serverAddress checks one server of a connect string before anything is
// dialled and returns it as host:port: a host, and a port from 1 to 65535
// (2181 when none is given).
func serverAddress(s string) (string, error) {
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
