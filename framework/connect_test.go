package framework_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
)

// A Connect that runs out says whose time ran out and why the server
// could not be reached, for each of the two deadlines that can end it.
func TestConnect_RunningOutIsUnreachableAndSaysWhoseDeadline(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		ctx   func() (context.Context, context.CancelFunc)
		whose string
	}{
		{"connection timeout", func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}, "connection timeout"},
		{"caller's deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 300*time.Millisecond)
		}, "caller's context"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := deadAddress(t)
			ctx, cancel := tc.ctx()
			defer cancel()
			c, err := framework.Connect(ctx, []string{addr}, framework.WithConnectionTimeout(300*time.Millisecond))
			require.Error(t, err)
			assert.Nil(t, c)
			assert.ErrorIs(t, err, framework.ErrUnreachable)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.ErrorIs(t, err, syscall.ECONNREFUSED, "the last dial error is wrapped: %v", err)
			assert.Contains(t, err.Error(), tc.whose)
			assert.Contains(t, err.Error(), addr)
		})
	}
}

// A wait that runs out says each thing once: the server, why the wait
// ended and the last failure; it stays errors.Is-able to ErrUnreachable,
// the context's error and the dial's error.
func TestWaitConnected_UnreachableSaysItsCauseOnce(t *testing.T) {
	addr := deadAddress(t)
	c, err := framework.New([]string{addr}, framework.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithTimeoutCause(context.Background(), 500*time.Millisecond, errors.New("--connect-timeout (500ms) ran out"))
	defer cancel()
	err = c.WaitConnected(ctx)
	require.ErrorIs(t, err, framework.ErrUnreachable)
	require.ErrorIs(t, err, framework.ErrNotConnected)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorIs(t, err, syscall.ECONNREFUSED)
	msg := err.Error()
	assert.Equal(t, 1, strings.Count(msg, addr), "the server once: %s", msg)
	assert.Equal(t, 1, strings.Count(msg, "unreachable"), "unreachable once: %s", msg)
	assert.Equal(t, 1, strings.Count(msg, "ran out"), "why once: %s", msg)
	assert.NotContains(t, msg, "not connected", "the same cause in other words: %s", msg)
	assert.NotContains(t, msg, "deadline exceeded", "the cause says whose deadline: %s", msg)
	assert.Contains(t, msg, "--connect-timeout (500ms) ran out")

	_, err = framework.Connect(context.Background(), []string{addr}, framework.WithConnectionTimeout(300*time.Millisecond))
	require.ErrorIs(t, err, framework.ErrUnreachable)
	assert.Equal(t, 1, strings.Count(err.Error(), addr), "the server once: %s", err)
	assert.Equal(t, 1, strings.Count(err.Error(), "unreachable"), "unreachable once: %s", err)
}
