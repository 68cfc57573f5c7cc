package framework_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// syncBuffer is a log sink that goroutines may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// deadAddress returns a loopback address that refuses connections.
func deadAddress(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// With no deadline of its own, Connect to a dead address ends within the
// connection timeout, and its error names the address and the cause.
func TestConnect_DeadAddressFailsNamingAddressAndCause(t *testing.T) {
	addr := deadAddress(t)
	logs := &syncBuffer{}
	c, err := framework.Connect(context.Background(), []string{addr},
		framework.WithConnectionTimeout(time.Second),
		framework.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	require.Error(t, err)
	assert.Nil(t, c)
	assert.ErrorIs(t, err, framework.ErrNotConnected)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorIs(t, err, syscall.ECONNREFUSED, "the dial error is wrapped: %v", err)
	assert.Contains(t, err.Error(), addr)
	assert.Contains(t, logs.String(), "cannot connect to ZooKeeper", "a blocked connect is never silent")
}

// A name that does not resolve is reported as such, not as "no servers".
// A label longer than 63 bytes is refused by Go's resolver itself, so the
// test sends no query to a name server (tests talk to loopback only).
func TestNew_UnresolvableHostIsNamed(t *testing.T) {
	host := strings.Repeat("x", 64) + ".invalid"
	_, err := framework.New([]string{host + ":2181"})
	require.ErrorIs(t, err, framework.ErrInvalidAddress)
	assert.NotErrorIs(t, err, framework.ErrNoServers)
	var dnsErr *net.DNSError
	assert.True(t, errors.As(err, &dnsErr), "wraps the resolver's error: %v", err)
	assert.Contains(t, err.Error(), host)
}

// ConnectionError is nil while connected, and names the last failure once
// the server goes away.
func TestClient_ConnectionErrorNamesTheLastFailure(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	require.NoError(t, c.ConnectionError())
	assert.True(t, c.IsConnected())
	proxy.Close() // refuses new connections from now on
	require.Eventually(t, func() bool { return !c.IsConnected() }, 10*time.Second, 5*time.Millisecond)
	require.Eventually(t, func() bool {
		return errors.Is(c.ConnectionError(), syscall.ECONNREFUSED)
	}, 10*time.Second, 5*time.Millisecond)
	assert.ErrorIs(t, c.ConnectionError(), framework.ErrNotConnected)
	require.NoError(t, c.Close())
	assert.ErrorIs(t, c.ConnectionError(), framework.ErrClosed)
	assert.True(t, c.IsClosed())
}

// A request the server would not read is refused before it is sent, so
// the connection (and every hold on it) survives; an error about a path
// never carries its control characters raw.
func TestClient_OversizedRequestsAndBadPathsFailCleanly(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	parent := zktest.UniquePath(t)
	big := make([]byte, framework.MaxRequestSize)
	before := proxy.Sent()
	_, err := c.Create(ctx, parent+"/big", big, framework.Persistent, framework.WithParents())
	require.ErrorIs(t, err, framework.ErrTooLarge)
	require.ErrorIs(t, err, zkrecipes.ErrInvalidArgument)
	_, err = c.Set(ctx, parent, big, -1)
	require.ErrorIs(t, err, framework.ErrTooLarge)
	_, err = c.Multi(ctx, framework.CreateOp(parent+"/a", big[:framework.MaxRequestSize/2], framework.Persistent),
		framework.CreateOp(parent+"/b", big[:framework.MaxRequestSize/2], framework.Persistent))
	require.ErrorIs(t, err, framework.ErrTooLarge)
	_, _, err = c.Get(ctx, "/"+strings.Repeat("p", framework.MaxRequestSize))
	require.ErrorIs(t, err, framework.ErrTooLarge)
	assert.Less(t, len(err.Error()), 1000, "the error does not quote the whole path")
	assert.Equal(t, before, proxy.Sent(), "nothing was sent")
	assert.True(t, c.IsConnected())

	_, _, err = c.Get(ctx, "/a\nlevel=ERROR msg=forged")
	require.ErrorIs(t, err, framework.ErrInvalidPath)
	assert.NotContains(t, err.Error(), "\n")
}
