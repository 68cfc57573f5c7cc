package node_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/node"
)

func TestTTLNode_TouchedWhileRunAndDeletedAtClose(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t) + "/worker"
	n, err := node.NewTTL(c, path, time.Second, []byte("alive"))
	require.NoError(t, err)
	require.NoError(t, n.Start(context.Background()))
	require.NoError(t, n.AwaitCreated(ctx))
	assert.Eventually(t, func() bool { ok, _, _ := c.Exists(ctx, path+"/touch"); return ok }, 10*time.Second, 10*time.Millisecond)
	_, before, err := c.Get(ctx, path+"/touch")
	require.NoError(t, err)
	// Touched every half TTL: alive well past its TTL.
	time.Sleep(3 * time.Second)
	_, after, err := c.Get(ctx, path+"/touch")
	require.NoError(t, err)
	assert.Greater(t, after.Version, before.Version, "touched")
	data, _, err := c.Get(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, "alive", string(data))

	require.NoError(t, n.Close(ctx))
	ok, _, err := c.Exists(ctx, path)
	require.NoError(t, err)
	assert.False(t, ok, "nothing left after Close")
}

// A process that stops without Close (its client gone) leaves the node
// until a TTL after its last touch; the server deletes it then.
func TestTTLNode_GoneATTLAfterItsProcessStopped(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	observer := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t) + "/worker"
	n, err := node.NewTTL(c, path, time.Second, nil)
	require.NoError(t, err)
	require.NoError(t, n.Start(context.Background()))
	require.NoError(t, n.AwaitCreated(ctx))
	assert.Eventually(t, func() bool { ok, _, _ := observer.Exists(ctx, path+"/touch"); return ok }, 10*time.Second, 10*time.Millisecond)
	// The process dies: no Close, no touch. Its link goes silent rather than
	// its client closing under a touch on its way: go-zookeeper 1.0.4 may
	// still decode the answer of a request its Close has failed, into the
	// result its caller reads (a data race of its own, seen here).
	proxy.Pause()
	stopped := time.Now()
	ok, _, err := observer.Exists(ctx, path)
	require.NoError(t, err)
	assert.True(t, ok, "still there: it outlives its session")
	assert.Eventually(t, func() bool {
		ok, _, err := observer.Exists(ctx, path)
		return err == nil && !ok
	}, 30*time.Second, 100*time.Millisecond, "the server deletes it after the TTL")
	assert.GreaterOrEqual(t, time.Since(stopped), 900*time.Millisecond, "not before its TTL")
}

func TestTTLNode_BadTTLFailsTyped(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	_, err := node.NewTTL(c, "/a", 0, nil)
	assert.ErrorIs(t, err, node.ErrInvalidArgument)
}
