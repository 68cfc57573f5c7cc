package main

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

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
