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

// A node started on a closed client stops at once, saying why, as every
// other recipe's call on a closed client fails at once.
func TestNode_StartedOnAClosedClientStopsWithErrClosed(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	n, err := node.New(c, zktest.UniquePath(t)+"/member", framework.Ephemeral, nil)
	require.NoError(t, err)
	require.NoError(t, c.Close())
	require.NoError(t, n.Start(context.Background()))
	defer n.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = n.AwaitCreated(ctx)
	require.ErrorIs(t, err, framework.ErrClosed)
	assert.ErrorIs(t, err, node.ErrClosed)
	zktest.WaitClosed(t, n.Done(), time.Second, "the node's Done")
	assert.ErrorIs(t, n.Err(), framework.ErrClosed)
}

// Close while a persistent node's create is on its way, its answer late:
// the create lands after Close returned, and is deleted after it, as an
// ephemeral one's is.
func TestNode_APersistentCreateCutShortByCloseLeavesNothing(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := persistentDir(t, other) + "/config"
	proxy.HoldRepliesFrom(zktest.OpCreate)
	n, err := node.New(c, path, framework.Persistent, []byte("ours"))
	require.NoError(t, err)
	require.NoError(t, n.Start(context.Background()))
	require.Eventually(t, func() bool { return exists(ctx, other, path) }, 10*time.Second, 10*time.Millisecond, "the create reaches the server")
	ended, cancel := context.WithCancel(ctx)
	cancel()
	_ = n.Close(ended) // returns at once; the node's goroutine deletes what it made
	proxy.ReleaseReplies()
	zktest.WaitClosed(t, n.Done(), 10*time.Second, "the node's Done")
	assert.False(t, exists(ctx, other, path), "the create cut short left its node")
}

// A persistent node of someone else's in the node's place, and Close
// before the node took it over: it is not the node's to delete.
func TestNode_ClosedBeforeTakingOverLeavesThePersistentNodeInItsPlace(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := persistentDir(t, other) + "/config"
	_, err := other.Create(ctx, path, []byte("theirs"), framework.Persistent)
	require.NoError(t, err)
	before := proxy.Requests(zktest.OpCreate)
	proxy.HoldRepliesFrom(zktest.OpCreate)
	n, err := node.New(c, path, framework.Persistent, []byte("ours"))
	require.NoError(t, err)
	require.NoError(t, n.Start(context.Background()))
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpCreate) > before }, 10*time.Second, 10*time.Millisecond, "the create is sent")
	ended, cancel := context.WithCancel(ctx)
	cancel()
	_ = n.Close(ended)
	proxy.ReleaseReplies()
	zktest.WaitClosed(t, n.Done(), 10*time.Second, "the node's Done")
	data, _, err := other.Get(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, "theirs", string(data))
}
