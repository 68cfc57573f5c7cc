package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes"
)

func TestUnreachable_AnAcquireLostAsItWasGrantedIsTheServersGoing(t *testing.T) {
	ctx := context.Background()
	interrupted, stop := context.WithCancelCause(ctx)
	stop(errInterrupted)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"lost as it was granted", ctx, fmt.Errorf("leader: selector /e: %w: connection suspended as leadership was taken", zkrecipes.ErrLost), true},
		{"session changed", ctx, zkrecipes.ErrSessionChanged, true},
		{"a signal", interrupted, zkrecipes.ErrLost, false},
		{"another failure", ctx, errors.New("no"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, unreachable(tc.ctx, tc.err))
			if tc.want {
				assert.Equal(t, exitUnreachable, exitCode(fmt.Errorf("%w: %w", errUnreachable, tc.err)))
			}
		})
	}
}

// zkr's message for a server it cannot reach says each thing once: the
// server, which of its timeouts ran out, and the last failure.
func TestUnreachable_MessageSaysItsCauseOnce(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // refuses connections from now on
	code, _, stderr := runZkr(t, "lock", "--servers", addr, "--connect-timeout", "500ms", "/job", "--", "true")
	assert.Equal(t, exitUnreachable, code, stderr)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)
	assert.True(t, strings.HasPrefix(stderr, "zkr: ZooKeeper unreachable: "), stderr)
	assert.Equal(t, 1, strings.Count(stderr, addr), "the server once: %s", stderr)
	assert.Equal(t, 1, strings.Count(strings.ToLower(stderr), "unreachable"), "unreachable once: %s", stderr)
	assert.Contains(t, stderr, "--connect-timeout (500ms) ran out")
	assert.NotContains(t, stderr, "deadline exceeded", stderr)
	assert.NotContains(t, stderr, "not connected", stderr)
}
