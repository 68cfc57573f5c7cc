package main

import (
	"context"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

func TestWaitFor_InterruptAsTheLockIsGrantedIsNotSwallowed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			path := zktest.UniquePath(t)
			signals := make(chan os.Signal, 4)
			e := &env{stderr: io.Discard, getenv: func(string) string { return "" }, signals: signals}
			conn := &connFlags{servers: serversFlag{value: zktest.Servers(t), set: true}, sessionTimeout: 10 * time.Second, connectTimeout: 30 * time.Second}
			c, err := conn.newClient(e)
			require.NoError(t, err)
			defer c.Close()
			m, err := mutex.New(c, path)
			require.NoError(t, err)
			_, err = waitFor(ctxOf(t), e, conn, c, acquireFlags{}, "lock "+path, func(ctx context.Context, _ time.Duration) (*mutex.Hold, error) {
				hold, err := m.Acquire(ctx)
				if err != nil {
					return nil, err
				}
				// The signal arrives as the lock is granted: zkr's
				// listener has taken it by the time acquire returns.
				signals <- tc.sig
				<-ctx.Done()
				return hold, nil
			}, releaseHold)
			require.ErrorIs(t, err, errInterrupted, "the interrupt was swallowed")
			assert.Equal(t, tc.want, exitCode(err))
			assert.Empty(t, zktest.Children(t, zktest.Connect(t, zktest.Servers(t)), path), "the granted lock was released")
		})
	}
}
