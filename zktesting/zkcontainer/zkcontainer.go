// Package zkcontainer runs a ZooKeeper server in a container through
// testcontainers-go, for tests on machines with Docker but no ZooKeeper
// installed. It is the container twin of zktesting's local server.
//
// It is a module of its own,
//
//	go get github.com/zkrecipes/zkrecipes/zktesting/zkcontainer
//
// so that testcontainers-go, the Docker client and what they need enter the
// module graph of a program that imports this package, and no other: a
// program that uses zkrecipes, or zktesting, pulls in no container tooling.
//
// The container shares the host's network and listens on a free loopback
// port (a bridge would need a network the machine may not have), with the
// same settings as zktesting's servers: a 200 ms tick, four-letter words
// allowed, TTL nodes, containers reaped every second, no fsync. It runs the
// official zookeeper image's entrypoint conventions (ZOO_* variables), which
// the image built by the project's .ci/zk-image.sh follows too.
//
// Ryuk, testcontainers' reaper, is turned off unless the environment says
// otherwise (its image must be pulled); New terminates the container when
// the test ends, and Start leaves that to Close.
package zkcontainer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/zkrecipes/zkrecipes/zktesting"
)

// DefaultImage is the image Start runs when neither WithImage nor the
// environment variable ZK_IMAGE names another.
const DefaultImage = "zookeeper:3.8"

// readyLine is logged by the server's container manager, the last service it
// starts: earlier lines come before the server accepts sessions.
const readyLine = "Using checkIntervalMs="

// startTimeout bounds a start when ctx has no deadline.
const startTimeout = 2 * time.Minute

// Option configures Start and New.
type Option func(*options)

type options struct{ image string }

// WithImage runs image. The default is $ZK_IMAGE if set, else DefaultImage.
func WithImage(image string) Option { return func(o *options) { o.image = image } }

// Server is one ZooKeeper server in a container. Its methods are safe for
// concurrent use.
type Server struct {
	provider *testcontainers.DockerProvider
	c        testcontainers.Container
	image    string
	addr     string

	mu     sync.Mutex // serialises Stop, Restart and Close
	closed bool
}

// New starts a server for the test alone, terminated when the test ends;
// a server that cannot start fails the test.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	s, err := Start(ctx, opts...)
	if err != nil {
		t.Fatalf("zkcontainer: start a ZooKeeper container: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("zkcontainer: close: %v", err)
		}
	})
	return s
}

// Start runs a ZooKeeper container and returns once it serves. If ctx has
// no deadline, it gives up after two minutes (the first run of an image may
// pull it).
func Start(ctx context.Context, opts ...Option) (*Server, error) {
	o := options{image: os.Getenv("ZK_IMAGE")}
	if o.image == "" {
		o.image = DefaultImage
	}
	for _, opt := range opts {
		opt(&o)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, startTimeout)
		defer cancel()
	}
	setenvDefault("TESTCONTAINERS_RYUK_DISABLED", "true")
	// Inside a container (/.dockerenv) testcontainers would take the default
	// gateway for the Docker host; with host networking it is loopback.
	setenvDefault("TESTCONTAINERS_HOST_OVERRIDE", "127.0.0.1")
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	provider, err := testcontainers.NewDockerProvider(testcontainers.WithDefaultBridgeNetwork("host"))
	if err != nil {
		return nil, fmt.Errorf("zkcontainer: docker provider: %w", err)
	}
	req := testcontainers.ContainerRequest{
		Image:              o.image,
		Env:                containerEnv(port),
		HostConfigModifier: func(hc *container.HostConfig) { hc.NetworkMode = "host" },
		WaitingFor:         wait.ForLog(readyLine).WithStartupTimeout(90 * time.Second),
	}
	c, err := provider.RunContainer(ctx, req)
	s := &Server{provider: provider, c: c, image: o.image}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("zkcontainer: run %s: %w", o.image, err), s.Close())
	}
	host, err := c.Host(ctx)
	if err == nil && !isLoopback(host) {
		err = fmt.Errorf("zkcontainer: container host %q is not a loopback address; set TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1", host)
	}
	if err != nil {
		return nil, errors.Join(err, s.Close())
	}
	s.addr = net.JoinHostPort(host, strconv.Itoa(port))
	return s, nil
}

// Addr returns the client address, "127.0.0.1:PORT". It stays the same
// across Stop and Restart.
func (s *Server) Addr() string { return s.addr }

// Image returns the image the container runs.
func (s *Server) Image() string { return s.image }

// Stop stops the container (its data stays); stopping a stopped server does
// nothing.
func (s *Server) Stop(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("zkcontainer: stop: %w", ErrClosed)
	}
	if err := s.c.Stop(ctx, nil); err != nil {
		return fmt.Errorf("zkcontainer: stop: %w", err)
	}
	return nil
}

// Restart stops the container if it runs and starts it again, with its
// data, on the same port, and returns once it serves. Sessions whose
// timeout has not run out in between survive.
func (s *Server) Restart(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("zkcontainer: restart: %w", ErrClosed)
	}
	if err := s.c.Stop(ctx, nil); err != nil {
		return fmt.Errorf("zkcontainer: stop: %w", err)
	}
	if err := s.c.Start(ctx); err != nil {
		return fmt.Errorf("zkcontainer: start: %w", err)
	}
	return awaitServing(ctx, s.addr)
}

// Close terminates the container. Later calls do nothing.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	if s.c != nil {
		errs = append(errs, testcontainers.TerminateContainer(s.c))
	}
	return errors.Join(append(errs, s.provider.Close())...)
}

// awaitServing polls mntr until the server at addr serves requests.
func awaitServing(ctx context.Context, addr string) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		_, err := zktesting.Mntr(pctx, addr)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("zkcontainer: %s not serving: %w (last look: %v)", addr, ctx.Err(), err)
		case <-tick.C:
		}
	}
}

// containerEnv configures the container's zoo.cfg like zktesting's, through
// the variables of the official image's entrypoint. The quorum ports of the
// server line are never bound: one server runs standalone.
func containerEnv(port int) map[string]string {
	extra := []string{
		"clientPort=" + strconv.Itoa(port),
		"clientPortAddress=127.0.0.1",
		"minSessionTimeout=400",
		"maxSessionTimeout=60000",
		"extendedTypesEnabled=true",
		"forceSync=no",
	}
	return map[string]string{
		"ZOO_TICK_TIME":              "200",
		"ZOO_MAX_CLIENT_CNXNS":       "0",
		"ZOO_ADMINSERVER_ENABLED":    "false",
		"ZOO_4LW_COMMANDS_WHITELIST": "*",
		"ZOO_SERVERS":                fmt.Sprintf("server.1=127.0.0.1:2888:3888;127.0.0.1:%d", port),
		"ZOO_CFG_EXTRA":              strings.Join(extra, " "),
		"JVMFLAGS":                   "-Xmx512m -Dznode.container.checkIntervalMs=1000",
	}
}

// setenvDefault sets the environment variable key to value unless it is set.
func setenvDefault(key, value string) {
	if _, ok := os.LookupEnv(key); !ok {
		_ = os.Setenv(key, value)
	}
}

// freePort returns a port the kernel handed out free on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("zkcontainer: pick a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// isLoopback tells whether host is localhost or a loopback IP address.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
