package framework

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// EnsembleConfig is an ensemble's configuration as ZooKeeper 3.5 and later
// keep it in /zookeeper/config: its members and the config's version.
type EnsembleConfig struct {
	// Version is the configuration's version: the zxid of the reconfig
	// that made it (the data's "version=" line, in hex), 0 when the data
	// names none.
	Version int64
	// Members are the servers, in the order of the data (ZooKeeper writes
	// them by id).
	Members []EnsembleMember
}

// EnsembleMember is one server of an EnsembleConfig.
type EnsembleMember struct {
	ID           int64      // the server's myid: N of its server.N line
	Role         MemberRole // participant or observer
	QuorumAddr   string     // host:port on which followers reach the leader
	ElectionAddr string     // host:port of leader election
	// ClientAddr is host:port on which the server takes clients, "" when
	// the line names no client port. A wildcard host (0.0.0.0, ::, or
	// none given) is replaced by the quorum address's host, which is the
	// one a client can dial, as Curator does.
	ClientAddr string
}

// MemberRole is what a member does in the ensemble.
type MemberRole string

const (
	// RoleParticipant votes, and may lead.
	RoleParticipant MemberRole = "participant"
	// RoleObserver serves clients and follows, but does not vote.
	RoleObserver MemberRole = "observer"
)

// clientAddrs returns the members' client addresses, in order, without
// the members that name none.
func (e EnsembleConfig) clientAddrs() []string {
	var addrs []string
	for _, m := range e.Members {
		if m.ClientAddr != "" {
			addrs = append(addrs, m.ClientAddr)
		}
	}
	return addrs
}

// parseEnsembleConfig reads the data of /zookeeper/config:
//
//	server.N=host:quorumport:electionport[:role][|host:port:port...][;[clientaddr:]clientport]
//	version=HEX
//
// Lines it does not need (group.N, weight.N) and blank lines are skipped;
// a line it cannot read fails the whole config, which the tracker then
// ignores. Empty data (a standalone server's) is an empty config.
func parseEnsembleConfig(data []byte) (EnsembleConfig, error) {
	var cfg EnsembleConfig
	seen := make(map[int64]bool)
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		key, value, ok := strings.Cut(line, "=")
		switch {
		case line == "":
			continue
		case !ok:
			return EnsembleConfig{}, fmt.Errorf("%w: line %q has no '='", ErrInvalidEnsembleConfig, line)
		case key == "version":
			v, err := strconv.ParseInt(value, 16, 64)
			if err != nil {
				return EnsembleConfig{}, fmt.Errorf("%w: version %q is not hexadecimal", ErrInvalidEnsembleConfig, value)
			}
			cfg.Version = v
		case strings.HasPrefix(key, "server."):
			m, err := parseMember(strings.TrimPrefix(key, "server."), value)
			if err != nil {
				return EnsembleConfig{}, fmt.Errorf("%w: %s: %w", ErrInvalidEnsembleConfig, line, err)
			}
			if seen[m.ID] {
				return EnsembleConfig{}, fmt.Errorf("%w: server %d named twice", ErrInvalidEnsembleConfig, m.ID)
			}
			seen[m.ID] = true
			cfg.Members = append(cfg.Members, m)
		}
	}
	return cfg, nil
}

// parseMember reads the value of a server.N line.
func parseMember(id, value string) (EnsembleMember, error) {
	var m EnsembleMember
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n < 0 {
		return m, fmt.Errorf("server id %q is not a number", id)
	}
	m.ID = n
	quorum, client, hasClient := strings.Cut(value, ";")
	quorum, _, _ = strings.Cut(quorum, "|") // 3.6's further addresses: the first serves
	host, rest, err := cutHost(quorum)
	if err != nil {
		return m, err
	}
	parts := strings.Split(rest, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return m, fmt.Errorf("%q: want host:quorumport:electionport[:role]", quorum)
	}
	if m.QuorumAddr, err = hostPort(host, parts[0]); err != nil {
		return m, err
	}
	if m.ElectionAddr, err = hostPort(host, parts[1]); err != nil {
		return m, err
	}
	m.Role = RoleParticipant
	if len(parts) == 3 {
		switch r := MemberRole(strings.ToLower(parts[2])); r {
		case RoleParticipant, RoleObserver:
			m.Role = r
		default:
			return m, fmt.Errorf("role %q is neither participant nor observer", parts[2])
		}
	}
	if hasClient {
		if m.ClientAddr, err = clientAddr(strings.TrimSpace(client), host); err != nil {
			return m, err
		}
	}
	return m, nil
}

// clientAddr reads the client part of a server line, "[addr:]port", and
// puts quorumHost in place of a missing or wildcard address.
func clientAddr(s, quorumHost string) (string, error) {
	host, port := "", s
	if strings.Contains(s, ":") {
		h, rest, err := cutHost(s)
		if err != nil {
			return "", err
		}
		host, port = h, rest
		if strings.Contains(port, ":") {
			return "", fmt.Errorf("client address %q: want [host:]port", s)
		}
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = quorumHost
	}
	return hostPort(host, port)
}

// cutHost splits "host:rest" or "[v6]:rest" at the colon after the host.
func cutHost(s string) (host, rest string, err error) {
	if strings.HasPrefix(s, "[") {
		end := strings.Index(s, "]:")
		if end < 0 {
			return "", "", fmt.Errorf("%q: an IPv6 address in brackets must be followed by a port", s)
		}
		return s[1:end], s[end+2:], nil
	}
	host, rest, ok := strings.Cut(s, ":")
	if !ok || host == "" {
		return "", "", fmt.Errorf("%q: want host:port", s)
	}
	return host, rest, nil
}

// hostPort joins host and port after checking the port.
func hostPort(host, port string) (string, error) {
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("port %q must be a number from 1 to 65535", port)
	}
	return net.JoinHostPort(host, port), nil
}
