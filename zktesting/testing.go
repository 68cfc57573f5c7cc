package zktesting

import (
	"context"
	"io"
	"log/slog"
	"time"
)

// TB is the part of testing.TB that NewServer and NewEnsemble use: pass
// the test's *testing.T or *testing.B, or any testing.TB. The package
// names its own interface rather than import package testing, so that a
// program that starts servers outside tests (Start, StartEnsemble), such
// as the zkr command, links no test-only code.
type TB interface {
	Helper()
	Cleanup(func())
	Failed() bool
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
	Output() io.Writer
}

// testStartTimeout bounds the start of a test's server or ensemble: JVMs
// start slowly on a loaded machine.
const testStartTimeout = 2 * time.Minute

// NewServer starts a standalone server for the test alone and returns once
// it serves; it is stopped, and its directory removed, when the test ends.
// Its starts and stops are logged to the test's output. A server that cannot
// start fails the test with the reason (the tail of the server's log); if
// the test fails, the tail of the server's log is logged before it goes.
func NewServer(t TB, opts ...Option) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testStartTimeout)
	defer cancel()
	opts = append([]Option{WithLogger(testLogger(t))}, opts...)
	s, err := Start(ctx, opts...)
	if err != nil {
		t.Fatalf("zktesting: start a ZooKeeper server: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("zktesting: close server: %v", err)
		}
	})
	logTailsOnFailure(t, s)
	return s
}

// NewEnsemble starts an ensemble of n servers for the test alone and
// returns once every member serves; it is stopped, and its directory
// removed, when the test ends. If the test fails, the tail of each
// member's log is logged before it goes.
func NewEnsemble(t TB, n int, opts ...Option) *Ensemble {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testStartTimeout)
	defer cancel()
	opts = append([]Option{WithLogger(testLogger(t))}, opts...)
	e, err := StartEnsemble(ctx, n, opts...)
	if err != nil {
		t.Fatalf("zktesting: start a ZooKeeper ensemble of %d: %v", n, err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("zktesting: close ensemble: %v", err)
		}
	})
	logTailsOnFailure(t, e.all()...)
	return e
}

// logTailsOnFailure logs the tail of each server's log once the test has
// failed; registered after the servers' Close, it runs before it.
func logTailsOnFailure(t TB, servers ...*Server) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, s := range servers {
			t.Logf("zktesting: the last lines of the log of %s (%s):\n%s", s.Addr(), s.logPath, logTail(s.logPath, 40))
		}
	})
}

// testLogger logs to the test's output.
func testLogger(t TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), nil))
}
