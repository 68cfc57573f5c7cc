package framework_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// EnsurePath of a path that exists needs no right to create in its
// parent: the server checks that right before it checks existence, so a
// path that exists is asked about, not created again.
func TestEnsurePath_AnExistingPathNeedsNoCreateRight(t *testing.T) {
	ctx := testContext(t)
	admin := connect(t, zktest.Servers(t), framework.WithAuth("digest", []byte("admin:pw")))
	top := zktest.UniquePath(t)
	require.NoError(t, admin.EnsurePath(ctx, top))
	readOnly := top + "/read-only"
	_, err := admin.Create(ctx, readOnly, nil, framework.Persistent, framework.WithACL(append(zk.WorldACL(zk.PermRead), zk.DigestACL(zk.PermAll, "admin", "pw")...)))
	require.NoError(t, err)
	existing := readOnly + "/existing"
	_, err = admin.Create(ctx, existing, nil, framework.Persistent)
	require.NoError(t, err)

	c := connect(t, zktest.Servers(t))
	require.NoError(t, c.EnsurePath(ctx, existing), "the path is there")
	require.NoError(t, c.EnsurePath(ctx, existing+"/below"), "only what is missing is created")
	ok, _, err := c.Exists(ctx, existing+"/below")
	require.NoError(t, err)
	assert.True(t, ok)
	err = c.EnsurePath(ctx, readOnly+"/missing")
	assert.ErrorIs(t, err, zk.ErrNoAuth, "what is missing still needs the right")
}

// An EnsurePath whose ctx ends while it asks whether the path exists
// creates nothing once the answer comes: a container that never has a
// child is never reaped, so a directory made for a caller gone would stay.
func TestEnsurePath_CtxEndingWhileItAsksCreatesNothing(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := zktest.Connect(t, proxy.Addr())
	observer := zktest.Connect(t, servers)
	path := zktest.UniquePath(t) + "/dir"
	ctx, cancel := context.WithCancel(zktest.Context(t))
	proxy.HoldRepliesFrom(zktest.OpExists)
	done := make(chan error, 1)
	go func() { done <- c.EnsurePath(ctx, path) }() // ends when the call returns
	require.Eventually(t, func() bool { return proxy.Answered(zktest.OpExists) >= 1 }, 10*time.Second, 5*time.Millisecond)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	proxy.ReleaseReplies()
	require.NoError(t, c.Close()) // waits for the call it left running
	assert.Zero(t, proxy.Requests(zktest.OpCreateContainer), "creates sent")
	ok, _, err := observer.Exists(zktest.Context(t), zkpath.Parent(path))
	require.NoError(t, err)
	assert.False(t, ok, "nothing made")
}
