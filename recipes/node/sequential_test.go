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

// An ephemeral sequential node without protection is named <path><seq>,
// and a create whose answer was lost is found again, not repeated: one
// node, one Created event.
func TestNode_WithoutProtectionALostAnswerLeavesOneNode(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	dir := persistentDir(t, other)
	proxy.DropNextReply(zktest.OpMulti)
	n, evs := started(t, c, dir+"/member-", framework.EphemeralSequential, "x", node.WithoutProtection())
	created := evs.next(t, node.Created)
	assert.Equal(t, 1, proxy.DroppedRepliesOf(zktest.OpMulti), "the create's answer was lost")
	names := zktest.Children(t, other, dir)
	require.Len(t, names, 1, "one node")
	assert.Regexp(t, `^member-[0-9]{10}$`, names[0])
	assert.Equal(t, dir+"/"+names[0], n.Node())
	assert.Equal(t, n.Node(), created.Path)
	select {
	case ev := <-evs:
		t.Fatalf("a second event: %+v", ev)
	default:
	}
	require.NoError(t, n.Close(ctx))
	assert.Empty(t, zktest.Children(t, other, dir), "nothing left after Close")
}

// Close while such a create's answer is late: the node it makes is found
// by its owner and data, and deleted after it.
func TestNode_WithoutProtectionACreateCutShortByCloseLeavesNothing(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	dir := persistentDir(t, other)
	proxy.HoldRepliesFrom(zktest.OpMulti)
	n, err := node.New(c, dir+"/member-", framework.EphemeralSequential, []byte("x"), node.WithoutProtection())
	require.NoError(t, err)
	require.NoError(t, n.Start(context.Background()))
	require.Eventually(t, func() bool { return len(zktest.Children(t, other, dir)) == 1 }, 10*time.Second, 10*time.Millisecond, "the create reaches the server")
	ended, cancel := context.WithCancel(ctx)
	cancel()
	_ = n.Close(ended)
	proxy.ReleaseReplies()
	zktest.WaitClosed(t, n.Done(), 10*time.Second, "the node's Done")
	assert.Empty(t, zktest.Children(t, other, dir), "the create cut short left its node")
}

func TestNode_WithoutProtectionIsForEphemeralSequentialOnly(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	for _, mode := range []framework.CreateMode{framework.Ephemeral, framework.Persistent, framework.PersistentSequential} {
		_, err := node.New(c, "/a", mode, nil, node.WithoutProtection())
		assert.ErrorIs(t, err, node.ErrInvalidArgument, mode)
	}
	_, err := node.New(c, "/a", framework.EphemeralSequential, nil, node.WithoutProtection(), node.WithProtection())
	assert.ErrorIs(t, err, node.ErrInvalidArgument, "both")
}
