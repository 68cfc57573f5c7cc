package node_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/node"
)

func joined(t *testing.T, c *framework.Client, path, id, data string) *node.GroupMember {
	t.Helper()
	g, err := node.NewGroupMember(c, path, id, []byte(data))
	require.NoError(t, err)
	require.NoError(t, g.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = g.Close(ctx)
	})
	require.NoError(t, g.AwaitJoined(testContext(t)))
	return g
}

func TestGroupMember_SeesTheOthersJoinChangeAndLeave(t *testing.T) {
	a := connect(t, zktest.Servers(t))
	b := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	ga := joined(t, a, path, "a", "one")
	gb := joined(t, b, path, "b", "two")
	assert.Eventually(t, func() bool { return len(ga.Members()) == 2 }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, map[string][]byte{"a": []byte("one"), "b": []byte("two")}, gb.Members())

	require.NoError(t, gb.SetData(ctx, []byte("three")))
	assert.Eventually(t, func() bool { return string(ga.Members()["b"]) == "three" }, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, gb.Close(ctx))
	assert.Eventually(t, func() bool { return len(ga.Members()) == 1 }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, []string{"a"}, zktest.Children(t, a, path))
}

// A member whose session expired joins again in its new one, and the
// others see it back.
func TestGroupMember_JoinsAgainAfterItsSessionExpired(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	const timeout = 2 * time.Second
	a := connect(t, proxy.Addr(), framework.WithSessionTimeout(timeout))
	b := connect(t, zktest.Servers(t))
	path := zktest.UniquePath(t)
	joined(t, a, path, "a", "x")
	gb := joined(t, b, path, "b", "y")
	assert.Eventually(t, func() bool { return len(gb.Members()) == 2 }, 10*time.Second, 10*time.Millisecond)
	proxy.Pause()
	assert.Eventually(t, func() bool { return len(gb.Members()) == 1 }, 20*time.Second, 20*time.Millisecond, "a's session expires")
	proxy.Resume()
	assert.Eventually(t, func() bool { return len(gb.Members()) == 2 }, 20*time.Second, 20*time.Millisecond, "a joins again")
}

func TestGroupMember_BadIDFailsTyped(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	for _, id := range []string{"", "a/b", ".", ".."} {
		_, err := node.NewGroupMember(c, "/g", id, nil)
		assert.ErrorIs(t, err, node.ErrInvalidArgument, id)
	}
}
