package zktest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/zktesting"
)

// sharedStartTimeout bounds the start of the shared server: a JVM on a
// busy machine may take a while.
const sharedStartTimeout = 2 * time.Minute

// shared is the test binary's shared server, started by the first Servers
// call and stopped by Main. It is zktest's one package-level mutable state,
// on purpose: a test binary shares one server among its tests, and TestMain
// is the only hook that runs after all of them to stop it.
var shared struct {
	once sync.Once
	addr string
	stop func() error // nil when there is nothing to stop
	err  error
}

// Main runs the tests of m, then stops the shared server, and exits with
// the tests' code (1 if they passed but the teardown failed). Call it from
// TestMain.
//
// Unless ZK_SERVERS is set, Main starts the shared server first and exports
// its connect string as ZK_SERVERS, so that Example functions connect as a
// user's program would, with strings.Split(os.Getenv("ZK_SERVERS"), ","),
// and child processes find it. Under -short it does so only when examples
// may run (-run unset, or matching "Example").
func Main(m *testing.M) {
	flag.Parse()
	if os.Getenv("ZK_SERVERS") == "" && (!testing.Short() || examplesMayRun()) {
		addr, err := sharedServer()
		if err != nil {
			fmt.Fprintf(os.Stderr, "zktest: no ZooKeeper server for this test binary: %v\n", err)
			os.Exit(1)
		}
		_ = os.Setenv("ZK_SERVERS", addr)
	}
	code := m.Run()
	if shared.stop != nil {
		if err := shared.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "zktest: stop shared server: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	os.Exit(code)
}

// Servers returns the connect string of the test binary's shared server,
// starting it on first use (see the package doc for where it comes from). A
// server that cannot start fails the test with the reason; under -short the
// test is skipped instead. The binary must stop it with Main.
func Servers(t testing.TB) string {
	t.Helper()
	Integration(t)
	addr, err := sharedServer()
	if err != nil {
		t.Fatalf("zktest: no ZooKeeper server for this test binary: %v", err)
	}
	return addr
}

// sharedServer starts the shared server once and returns its address.
func sharedServer() (string, error) {
	shared.once.Do(func() {
		shared.addr, shared.stop, shared.err = startShared()
	})
	return shared.addr, shared.err
}

// startShared starts the shared server of the backend the environment names.
func startShared() (string, func() error, error) {
	if servers := os.Getenv("ZK_SERVERS"); servers != "" {
		return servers, nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), sharedStartTimeout)
	defer cancel()
	switch backend := os.Getenv("ZK_BACKEND"); backend {
	case "", "local":
		s, err := zktesting.Start(ctx)
		if err != nil {
			return "", nil, err
		}
		return s.Addr(), s.Close, nil
	case "container":
		// The container backend is a module of its own, so that no
		// module's graph holds container tooling for a test's sake.
		return "", nil, errors.New("ZK_BACKEND=container: the container backend's tests live in the module zktesting/zkcontainer (make test-container); " +
			"to run these tests against a container, start one and set ZK_SERVERS")
	default:
		return "", nil, fmt.Errorf("unknown ZK_BACKEND %q (want local)", backend)
	}
}

// examplesMayRun tells whether the -test.run pattern may select an Example
// function.
func examplesMayRun() bool {
	f := flag.Lookup("test.run")
	if f == nil || f.Value.String() == "" {
		return true
	}
	re, err := regexp.Compile(strings.SplitN(f.Value.String(), "/", 2)[0])
	return err != nil || re.MatchString("Example") || strings.Contains(f.Value.String(), "Example")
}
