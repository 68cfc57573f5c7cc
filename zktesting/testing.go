package zktesting

import (
	"context"
	"log/slog"
	"testing"
	"time"
)

// testStartTimeout bounds the start of a test's server or ensemble: JVMs
// start slowly on a loaded machine.
const testStartTimeout = 2 * time.Minute

// NewServer starts a standalone server for the test alone and returns once
// it serves; it is stopped, and its directory removed, when the test ends.
// Its starts and stops are logged to the test's output. A server that cannot
// start fails the test with the reason (the tail of the server's log).
func NewServer(t testing.TB, opts ...Option) *Server {
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
	return s
}

// NewEnsemble starts an ensemble of n servers for the test alone and
// returns once every member serves; it is stopped, and its directory
// removed, when the test ends.
func NewEnsemble(t testing.TB, n int, opts ...Option) *Ensemble {
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
	return e
}

// testLogger logs to the test's output.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), nil))
}
