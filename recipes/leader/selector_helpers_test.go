package leader_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// newSelector is NewSelector that must succeed.
func newSelector(t testing.TB, c *framework.Client, path string, fn func(context.Context) error, opts ...leader.Option) *leader.Selector {
	t.Helper()
	s, err := leader.NewSelector(c, path, fn, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

// returns is a selector's function that returns nil at once.
func returns(context.Context) error { return nil }

// stuckSelector is newSelector with a function that ignores its ctx
// until unblock is closed. run runs it and returns once the function has
// been entered; ran gets Run's error.
func stuckSelector(t testing.TB, c *framework.Client, path string, opts ...leader.Option) (
	s *leader.Selector, unblock chan struct{}, run func(ctx context.Context) (ran <-chan error),
) {
	entered, unblock := make(chan struct{}), make(chan struct{})
	s = newSelector(t, c, path, func(context.Context) error {
		close(entered)
		<-unblock
		return nil
	}, opts...)
	return s, unblock, func(ctx context.Context) <-chan error {
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }() // ends when the function returns
		<-entered
		return done
	}
}

// logLines is a slog handler's output, safe for concurrent use.
type logLines struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// capturedLogger returns a logger whose lines, from Debug up, land in the
// returned buffer.
func capturedLogger() (*slog.Logger, *logLines) {
	lines := &logLines{}
	return slog.New(slog.NewTextHandler(lines, &slog.HandlerOptions{Level: slog.LevelDebug})), lines
}
