package zktesting

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Server is one ZooKeeper server process on 127.0.0.1. Its methods are safe
// for concurrent use.
type Server struct {
	java    string
	args    []string // JVM arguments, ending with the config file
	addr    string
	dir     string // holds zoo.cfg, data/ and zookeeper.log
	ownDir  bool   // dir is ours to remove on Close
	logPath string
	log     *slog.Logger
	tls     *TLS // nil without WithTLS

	mu      sync.Mutex
	cfg     serverConfig // what zoo.cfg says; changed by SetMaxSessionTimeout
	id      int          // myid of an ensemble member, 0 standalone
	proc    *process     // nil while stopped
	started bool         // the port was ours once: a restart waits for it
	closed  bool
}

// Start starts a standalone server on a free loopback port and returns once
// it is ready: it answers ruok with imok and gives a client a session. If ctx
// has no deadline, Start gives up after 60 s. A server that fails to start
// is stopped and its error carries the tail of its log; a port that another
// process listens on is ErrPortInUse. A port picked free that another
// process takes before the server binds it is picked again.
func Start(ctx context.Context, opts ...Option) (*Server, error) {
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	return withFreshPorts(o, func() (*Server, error) { return startServer(ctx, o) })
}

// startServer starts a standalone server as Start does, once.
func startServer(ctx context.Context, o options) (*Server, error) {
	ports := []int{o.port}
	if o.port == 0 {
		var release func()
		var err error
		if ports, release, err = freePorts(1); err != nil {
			return nil, err
		}
		release()
	}
	dir, ownDir, err := serverDir(o.dir, "zktesting-")
	if err != nil {
		return nil, err
	}
	s, err := newServer(o, dir, ownDir, ports[0], 0, nil)
	if err != nil {
		if ownDir {
			_ = os.RemoveAll(dir)
		}
		return nil, err
	}
	if err := s.start(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// serverDir returns dir, created if missing, or a new temporary directory.
func serverDir(dir, pattern string) (string, bool, error) {
	if dir == "" {
		tmp, err := os.MkdirTemp("", pattern)
		if err != nil {
			return "", false, fmt.Errorf("zktesting: %w", err)
		}
		return tmp, true, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, fmt.Errorf("zktesting: %w", err)
	}
	abs, err := filepath.Abs(dir)
	return abs, false, err
}

// newServer writes the configuration of a server in dir; id and peers are
// set for an ensemble member only. It starts nothing.
func newServer(o options, dir string, ownDir bool, port, id int, peers []peer) (*Server, error) {
	java, err := findJava()
	if err != nil {
		return nil, err
	}
	jar, err := findJar(o.jar)
	if err != nil {
		return nil, err
	}
	cp, err := classpath(jar)
	if err != nil {
		return nil, err
	}
	cfg := serverConfig{tick: o.tick, dataDir: filepath.Join(dir, "data"), clientPort: port, peers: peers, noTTL: o.noTTL, maxSession: o.maxSession, syncLimit: o.syncLimitOf(),
		reconfig: o.reconfig && id > 0}
	if o.tls != nil {
		if cfg.tls, cp, err = setUpTLS(o.tls, dir, cp); err != nil {
			return nil, err
		}
	}
	if err := writeConfig(dir, cfg, id); err != nil {
		return nil, err
	}
	sasl, err := saslJavaOpts(dir, o.saslUsers)
	if err != nil {
		return nil, err
	}
	return &Server{
		java:    java,
		args:    javaArgs(cp, dir, append(sasl, o.javaOpts...)),
		addr:    "127.0.0.1:" + strconv.Itoa(port),
		dir:     dir,
		ownDir:  ownDir,
		logPath: filepath.Join(dir, "zookeeper.log"),
		log:     o.logger,
		cfg:     cfg,
		id:      id,
		tls:     o.tls,
	}, nil
}

// Addr returns the client address, "127.0.0.1:PORT". It stays the same
// across Stop and Restart.
func (s *Server) Addr() string { return s.addr }

// Dir returns the directory that holds the server's zoo.cfg, data and
// zookeeper.log.
func (s *Server) Dir() string { return s.dir }

// PID returns the process id of the running server, or 0 when it is stopped.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil || s.proc.exited() {
		return 0
	}
	return s.proc.pid()
}

// SetMaxSessionTimeout changes the longest session timeout the server
// grants (see WithMaxSessionTimeout) from its next start on: Restart it, or
// stop and start an ensemble member, for the change to take effect. A
// session that lives through the restart keeps going, and each of its new
// connections is granted at most d: what a rolling change of an ensemble's
// limits does to its clients. d must be at least two ticks.
func (s *Server) SetMaxSessionTimeout(d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d < 2*s.cfg.tick {
		return fmt.Errorf("%w: %v is under two ticks (%v)", ErrInvalidSessionTimeout, d, 2*s.cfg.tick)
	}
	cfg := s.cfg
	cfg.maxSession = d
	if err := writeConfig(s.dir, cfg, s.id); err != nil {
		return err
	}
	s.cfg = cfg
	return nil
}
