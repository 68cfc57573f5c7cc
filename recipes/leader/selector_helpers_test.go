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
func newSelector(t testing.TB, c *framework.Client, path string, opts ...leader.Option) *leader.Selector {
	t.Helper()
	s, err := leader.NewSelector(c, path, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

// runStuck runs s with a function that ignores its ctx until unblock is
// closed, and returns once the function has been entered; ran gets Run's
// error.
func runStuck(ctx context.Context, s *leader.Selector) (unblock chan struct{}, ran <-chan error) {
	entered, unblock, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() { // ends when the function returns
		done <- s.Run(ctx, func(context.Context) error {
			close(entered)
			<-unblock
			return nil
		})
	}()
	<-entered
	return unblock, done
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
