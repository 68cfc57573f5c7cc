package wire

import (
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// DialFunc is go-zookeeper's dialer type: the client asks each server its
// version through one, and wraps the connections another dials.
type DialFunc = func(network, address string, timeout time.Duration) (net.Conn, error)

// ServerCaps remembers, per server address, whether the server implements
// the requests of ZooKeeper 3.6 (addWatch, multiRead, setWatches2). A
// server answers a request it does not know with UNIMPLEMENTED and then
// closes the connection (its UnimplementedRequestProcessor does both, in
// 3.4 as in 3.9), which would suspend every hold of the client: so the
// client never finds out by trying. It asks each server once, on a
// connection of its own, with the four-letter word srvr, which every
// server since 3.4 answers by default (3.5's whitelist keeps it), and
// sends those requests only to a server that says it is 3.6 or later, or
// says no version (srvr disabled, another implementation): then a
// request answered UNIMPLEMENTED marks the server as lacking it, for the
// rest of the client's life.
type ServerCaps struct {
	Dial    DialFunc
	Timeout time.Duration
	addr    atomic.Pointer[string] // of the current connection

	mu      sync.Mutex
	servers map[string]*serverCap
}

// serverCap is what one server implements.
type serverCap struct {
	mu     sync.Mutex // held while asking the server
	asked  bool
	modern bool // said 3.6 or later, or said no version
	lacks  map[int32]bool
	// apart: said 3.9 or later, which keeps the watch modes of a path
	// apart (ZOOKEEPER-4466); read as requests are written, so atomic.
	apart atomic.Bool
}

// NewServerCaps returns a table that asks servers through dial (the
// default dial when nil), each answer awaited for timeout.
func NewServerCaps(dial DialFunc, timeout time.Duration) *ServerCaps {
	if dial == nil {
		dial = net.DialTimeout
	}
	return &ServerCaps{Dial: dial, Timeout: timeout, servers: make(map[string]*serverCap)}
}

// connected records the address of a new connection.
func (s *ServerCaps) connected(addr string) { s.addr.Store(&addr) }

// Current returns the address of the current connection.
func (s *ServerCaps) Current() string {
	if p := s.addr.Load(); p != nil {
		return *p
	}
	return ""
}

// modernOps are the requests only ZooKeeper 3.6 and later implement.
var modernOps = map[int32]bool{OpAddWatch: true, OpMultiRead: true, OpSetWatches2: true}

// lacks reports whether the server at addr lacks op, asking it first if
// op is one of ZooKeeper 3.6's and the server has not been asked. A
// server that cannot be asked (unreachable, or no connection yet) fails
// with errNotAsked, which the retry loop takes as a lost connection.
func (s *ServerCaps) lacks(addr string, op int32) (bool, error) {
	if !modernOps[op] {
		return false, nil
	}
	c := s.of(addr)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.asked {
		if addr == "" {
			return false, errNotAsked
		}
		modern, apart, known := s.ask(addr)
		if !known {
			return false, errNotAsked
		}
		c.asked, c.modern = true, modern
		c.apart.Store(apart)
	}
	return !c.modern || c.lacks[op], nil
}

// errNotAsked is the error of a request for a server whose version could
// not be asked: retryable, as a lost connection is.
var errNotAsked = fmt.Errorf("framework: the server's version could not be asked: %w", zk.ErrConnectionClosed)

// ModesApart reports whether the server at addr said it keeps the watch
// modes of a path apart (3.9 and later). It never blocks: a server not
// asked yet is taken for one that does not.
func (s *ServerCaps) ModesApart(addr string) bool { return s.of(addr).apart.Load() }

// KnownLacking reports whether the server at addr is known to lack op,
// without asking it.
func (s *ServerCaps) KnownLacking(addr string, op int32) bool {
	c := s.of(addr)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lacks[op]
}

// Lack records that the server at addr answered op with UNIMPLEMENTED.
func (s *ServerCaps) Lack(addr string, op int32) {
	c := s.of(addr)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lacks[op] = true
}

func (s *ServerCaps) of(addr string) *serverCap {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.servers[addr]
	if c == nil {
		c = &serverCap{lacks: make(map[int32]bool)}
		s.servers[addr] = c
	}
	return c
}

// ask sends srvr to addr. known is false when no answer came (the server
// could not be reached): the caller then asks again later. apart: the
// server keeps the watch modes of a path apart (3.9 and later).
func (s *ServerCaps) ask(addr string) (modern, apart, known bool) {
	conn, err := s.Dial("tcp", addr, s.Timeout)
	if err != nil {
		return false, false, false
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(s.Timeout))
	if _, err := io.WriteString(conn, "srvr"); err != nil {
		return false, false, false
	}
	answer, err := io.ReadAll(io.LimitReader(conn, 64<<10))
	if err != nil && len(answer) == 0 {
		return false, false, false
	}
	major, minor, ok := zookeeperVersion(string(answer))
	if !ok {
		// No version said: try, and learn from the answer; take the modes
		// for one per path, which is right for either kind of server.
		return true, false, true
	}
	return major > 3 || (major == 3 && minor >= 6), major > 3 || (major == 3 && minor >= 9), true
}

// versionLine finds ZooKeeper's version in srvr's answer:
// "Zookeeper version: 3.8.0-5a02a05e..., built on ...".
var versionLine = regexp.MustCompile(`(?m)^Zookeeper version: (\d+)\.(\d+)`)

// zookeeperVersion reads the major and minor version from srvr's answer.
func zookeeperVersion(answer string) (major, minor int, ok bool) {
	m := versionLine.FindStringSubmatch(answer)
	if m == nil {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(m[1])
	minor, err2 := strconv.Atoi(m[2])
	return major, minor, err1 == nil && err2 == nil
}
