package framework_test

import (
	"context"
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
