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

// persistentDir makes a persistent directory for a test's nodes: a
// container would go with its last child.
func persistentDir(t *testing.T, c *framework.Client) string {
	t.Helper()
	dir := zktest.UniquePath(t)
	_, err := c.Create(testContext(t), dir, nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	return dir
}

// exists reports whether path exists, for Eventually.
func exists(ctx context.Context, c *framework.Client, path string) bool {
	ok, _, err := c.Exists(ctx, path)
	return err == nil && ok
}

// Someone deletes the node after the server made it and before its
// answer came: the node is created again at once, as Curator's
// PersistentNode does, rather than waiting for a creation nobody makes.
func TestNode_DeletedRightAfterItsCreateIsCreatedAgain(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := persistentDir(t, other) + "/member"
	proxy.HoldRepliesFrom(zktest.OpCreate)
	n, err := node.New(c, path, framework.Ephemeral, []byte("x"))
	require.NoError(t, err)
	evs := make(events, 16)
	n.AddListener(evs.listener())
	require.NoError(t, n.Start(context.Background()))
	defer n.Close(ctx)
	require.Eventually(t, func() bool { return exists(ctx, other, path) }, 10*time.Second, 10*time.Millisecond, "the create reaches the server")
	require.NoError(t, other.Delete(ctx, path, -1))
	proxy.ReleaseReplies()
	evs.next(t, node.Created)
	require.Eventually(t, func() bool {
		_, stat, err := other.Get(ctx, path)
		return err == nil && stat.EphemeralOwner == c.Session().ID()
	}, 10*time.Second, 20*time.Millisecond, "created again")
	// The server has the node before the client has the create's answer.
	assert.Eventually(t, func() bool { return n.Node() == path }, 10*time.Second, 10*time.Millisecond,
		"the node knows its node again")
}

// SetData while the node is being created again, its create carrying
// the old data: the node gets the new data once it exists, and keeps it,
// and AwaitData returns once it has it.
func TestNode_SetDataWhileTheNodeIsCreatedAgainLands(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := persistentDir(t, other) + "/member"
	n, _ := started(t, c, path, framework.Ephemeral, "first")
	proxy.HoldRepliesFrom(zktest.OpCreate)
	require.NoError(t, other.Delete(ctx, path, -1))
	require.Eventually(t, func() bool { return n.Node() == "" && exists(ctx, other, path) }, 10*time.Second, 10*time.Millisecond,
		"the create again reaches the server, with the old data")
	require.NoError(t, n.SetData(ctx, []byte("second")))
	awaited := make(chan error, 1)
	go func() { awaited <- n.AwaitData(ctx) }() // ends when the data is on the server, or with ctx
	proxy.ReleaseReplies()
	require.NoError(t, <-awaited)
	data, stat, err := other.Get(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, "second", string(data), "AwaitData returned before the data was on the server")
	assert.Equal(t, c.Session().ID(), stat.EphemeralOwner)
}
