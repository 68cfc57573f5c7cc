package mutex_test

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// lockedBuffer is a log destination safe for concurrent writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// WithLogger takes the lock's own messages away from the client's logger,
// as every recipe's WithLogger does (CONTRIBUTING.md).
func TestMutex_WithLoggerTellsALostHoldThere(t *testing.T) {
	var own, clients lockedBuffer
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithLogger(slog.New(slog.NewTextHandler(&clients, nil))))
	m := newMutex(t, c, zktest.UniquePath(t), mutex.WithLogger(slog.New(slog.NewTextHandler(&own, nil))))
	h, err := m.Acquire(testContext(t))
	require.NoError(t, err)
	proxy.Cut()
	waitClosed(t, h.Lost(), 10*time.Second, "the loss channel")
	require.Eventually(t, func() bool { return strings.Contains(own.String(), "lock hold lost") },
		10*time.Second, 10*time.Millisecond, "the lock's logger hears of the loss")
	assert.NotContains(t, clients.String(), "lock hold lost")
}
