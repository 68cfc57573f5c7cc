package leader_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// Bad input is refused with ErrInvalidArgument before anything is
// written: the election's path is never created.
func TestLatch_BadInputIsRefusedBeforeAnyWrite(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	good := zktest.UniquePath(t)
	for _, tc := range []struct {
		name   string
		client *framework.Client
		path   string
		opts   []leader.Option
	}{
		{"nil client", nil, good, nil},
		{"empty path", c, "", nil},
		{"relative path", c, "zktest/x", nil},
		{"trailing slash", c, good + "/", nil},
		{"the root", c, "/", nil},
		{"nil option", c, good, []leader.Option{nil}},
		{"unknown error policy", c, good, []leader.Option{leader.WithErrorPolicy(framework.ErrorPolicy(7))}},
		{"unknown close mode", c, good, []leader.Option{leader.WithCloseMode(leader.CloseMode(7))}},
		{"nil logger", c, good, []leader.Option{leader.WithLogger(nil)}},
		{"id over the server's limit", c, good, []leader.Option{leader.WithID(strings.Repeat("x", framework.MaxRequestSize))}},
		{"node over the server's limit", c, good, []leader.Option{leader.WithID(strings.Repeat("x", framework.MaxRequestSize-20))}},
		{"a selector's auto-requeue", c, good, []leader.Option{leader.WithAutoRequeue()}},
		{"a selector's stop timeout", c, good, []leader.Option{leader.WithStopTimeout(time.Second)}},
		{"an observer's election of selectors", c, good, []leader.Option{leader.ObserveSelector()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := leader.NewLatch(tc.client, tc.path, tc.opts...)
			require.ErrorIs(t, err, leader.ErrInvalidArgument)
			assert.Nil(t, l)
		})
	}
	ok, _, err := c.Exists(testContext(t), good)
	require.NoError(t, err)
	assert.False(t, ok, "nothing was written")
}
