package leader_test

import (
	"strings"
	"testing"

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
		opts   []leader.LatchOption
	}{
		{"nil client", nil, good, nil},
		{"empty path", c, "", nil},
		{"relative path", c, "zktest/x", nil},
		{"trailing slash", c, good + "/", nil},
		{"the root", c, "/", nil},
		{"nil option", c, good, []leader.LatchOption{nil}},
		{"unknown error policy", c, good, []leader.LatchOption{leader.WithErrorPolicy(framework.ErrorPolicy(7))}},
		{"unknown close mode", c, good, []leader.LatchOption{leader.WithCloseMode(leader.CloseMode(7))}},
		{"nil logger", c, good, []leader.LatchOption{leader.WithLogger(nil)}},
		{"id over the server's limit", c, good, []leader.LatchOption{leader.WithID(strings.Repeat("x", framework.MaxRequestSize))}},
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
