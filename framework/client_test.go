package framework_test

import (
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

func TestNew_RejectsBadInput(t *testing.T) {
	tests := []struct {
		name    string
		servers []string
		opts    []framework.Option
		want    error
	}{
		{"no servers", nil, nil, framework.ErrNoServers},
		{"empty server", []string{""}, nil, framework.ErrInvalidAddress},
		{"bad chroot", []string{"127.0.0.1:2181/app/"}, nil, framework.ErrInvalidAddress},
		{"chroot and another namespace", []string{"127.0.0.1/app"}, []framework.Option{framework.WithNamespace("/b")}, framework.ErrNamespaceConflict},
		{"bracketed host without a port, bad", []string{"[::1"}, nil, framework.ErrInvalidAddress},
		{"empty port", []string{"127.0.0.1:"}, nil, framework.ErrInvalidAddress},
		{"port out of range", []string{"127.0.0.1:65536"}, nil, framework.ErrInvalidAddress},
		{"port zero", []string{"127.0.0.1:0"}, nil, framework.ErrInvalidAddress},
		{"no host", []string{":2181"}, nil, framework.ErrInvalidAddress},
		{"one bad of two", []string{"127.0.0.1:2181", "127.0.0.1:x"}, nil, framework.ErrInvalidAddress},
		{"session timeout below the minimum", []string{"127.0.0.1:1"}, []framework.Option{framework.WithSessionTimeout(time.Millisecond)}, framework.ErrInvalidOption},
		{"nil option", []string{"127.0.0.1:1"}, []framework.Option{nil}, framework.ErrInvalidOption},
		{"negative session timeout", []string{"127.0.0.1:1"}, []framework.Option{framework.WithSessionTimeout(-time.Second)}, framework.ErrInvalidOption},
		{"zero connection timeout", []string{"127.0.0.1:1"}, []framework.Option{framework.WithConnectionTimeout(0)}, framework.ErrInvalidOption},
		{"nil retry policy", []string{"127.0.0.1:1"}, []framework.Option{framework.WithRetryPolicy(nil)}, framework.ErrInvalidOption},
		{"bad namespace", []string{"127.0.0.1:1"}, []framework.Option{framework.WithNamespace("app/")}, framework.ErrInvalidOption},
		{"empty namespace", []string{"127.0.0.1:1"}, []framework.Option{framework.WithNamespace("")}, framework.ErrInvalidOption},
		{"root namespace", []string{"127.0.0.1:1"}, []framework.Option{framework.WithNamespace("/")}, framework.ErrInvalidOption},
		{"nil ACL provider", []string{"127.0.0.1:1"}, []framework.Option{framework.WithACLProvider(nil)}, framework.ErrInvalidOption},
		{"empty auth scheme", []string{"127.0.0.1:1"}, []framework.Option{framework.WithAuth("", nil)}, framework.ErrInvalidOption},
		{"nil logger", []string{"127.0.0.1:1"}, []framework.Option{framework.WithLogger(nil)}, framework.ErrInvalidOption},
		{"nil zk option", []string{"127.0.0.1:1"}, []framework.Option{framework.WithZKOptions(nil)}, framework.ErrInvalidOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := framework.New(tt.servers, tt.opts...)
			require.ErrorIs(t, err, tt.want)
			if errors.Is(tt.want, framework.ErrInvalidOption) {
				// One sentinel for bad input in the whole library.
				assert.ErrorIs(t, err, framework.ErrInvalidArgument)
			}
			assert.Nil(t, c)
		})
	}
}

// Connect strings as Curator users write them: a host without a port is
// on 2181.
func TestNew_ConnectStringsAsCuratorWritesThem(t *testing.T) {
	for _, servers := range [][]string{{"127.0.0.1"}, {"localhost"}, {"[::1]"}, {"127.0.0.1", "127.0.0.1:2182"}} {
		c, err := framework.New(servers, framework.WithLogger(slog.New(slog.DiscardHandler)))
		require.NoError(t, err, "%q", servers)
		c.Close()
	}
}

func TestClient_BadPathsAreRejectedBeforeTheServer(t *testing.T) {
	t.Parallel()
	// Counted at a proxy of the client's own: the shared server's packet
	// count also took other tests' and the client's background work.
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	require.NoError(t, c.WaitConnected(ctx))
	before := proxy.Sent()
	for _, p := range []string{"", "a", "/a/", "/a//b", "/a/./b", "/a/../b", "/a\x00b", "/"} {
		_, err := c.Create(ctx, p, nil, framework.Persistent)
		assert.ErrorIs(t, err, framework.ErrInvalidPath, "create %q", p)
	}
	for _, p := range []string{"", "a", "/a/", "/a//b"} {
		_, _, err := c.Get(ctx, p)
		assert.ErrorIs(t, err, framework.ErrInvalidPath, "get %q", p)
		assert.ErrorIs(t, c.Delete(ctx, p, -1), framework.ErrInvalidPath, "delete %q", p)
	}
	for _, p := range []string{"", "x", "/a//x", "/a/../x", "/a\x00/x"} {
		_, err := c.CreateProtected(ctx, p, nil, framework.EphemeralSequential)
		assert.ErrorIs(t, err, framework.ErrInvalidPath, "protected %q", p)
	}
	_, err := c.Create(ctx, "/x", nil, framework.PersistentTTL)
	assert.ErrorIs(t, err, framework.ErrInvalidOption, "a TTL mode needs a TTL")
	_, err = c.Create(ctx, "/x", nil, framework.Persistent, framework.WithTTL(time.Second))
	assert.ErrorIs(t, err, framework.ErrInvalidOption, "a TTL needs a TTL mode")
	_, err = c.Create(ctx, "/x", nil, framework.CreateMode(99))
	assert.ErrorIs(t, err, framework.ErrInvalidOption)
	_, err = c.Multi(ctx)
	assert.ErrorIs(t, err, framework.ErrInvalidOption)
	assert.Equal(t, before, proxy.Sent(), "nothing reached the server")
}

func TestClient_CallsAfterCloseFailWithErrClosed(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	require.NoError(t, c.Close())
	require.NoError(t, c.Close(), "Close is idempotent")
	ctx := testContext(t)
	_, _, err := c.Get(ctx, "/")
	assert.ErrorIs(t, err, framework.ErrClosed)
	_, err = c.Create(ctx, "/x", nil, framework.Persistent)
	assert.ErrorIs(t, err, framework.ErrClosed)
	_, err = c.CreateProtected(ctx, "/x", nil, framework.EphemeralSequential)
	assert.ErrorIs(t, err, framework.ErrClosed)
	assert.ErrorIs(t, c.WaitConnected(ctx), framework.ErrClosed)
	_, err = c.DeleteInBackground("/x")
	assert.ErrorIs(t, err, framework.ErrClosed)
}

func TestClient_CloseEndsTheSession(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	_, err := c.Create(ctx, path, nil, framework.Ephemeral, framework.WithParents())
	require.NoError(t, err)
	s := c.Session()
	require.NotNil(t, s)
	require.NoError(t, c.Close())
	assert.True(t, s.IsLost())
	ok, _, err := other.Exists(ctx, path)
	require.NoError(t, err)
	assert.False(t, ok, "closing the client ends its session and its ephemeral nodes")
}

func TestClient_OperationsWrapServerErrors(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	_, _, err := c.Get(ctx, path)
	require.ErrorIs(t, err, zk.ErrNoNode)
	var opErr *framework.OpError
	require.True(t, errors.As(err, &opErr))
	assert.Equal(t, "get", opErr.Op)
	assert.Equal(t, path, opErr.Path)

	_, err = c.Create(ctx, path+"/a/b", []byte("x"), framework.Persistent)
	require.ErrorIs(t, err, zk.ErrNoNode, "no parents without WithParents")
	got, err := c.Create(ctx, path+"/a/b", []byte("x"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	assert.Equal(t, path+"/a/b", got)

	_, err = c.Create(ctx, path+"/a/b", nil, framework.Persistent)
	require.ErrorIs(t, err, zk.ErrNodeExists)
	_, err = c.Set(ctx, path+"/a/b", []byte("y"), 7)
	require.ErrorIs(t, err, zk.ErrBadVersion)
	stat, err := c.Set(ctx, path+"/a/b", []byte("y"), 0)
	require.NoError(t, err)
	assert.Equal(t, int32(1), stat.Version)
	data, _, err := c.Get(ctx, path+"/a/b")
	require.NoError(t, err)
	assert.Equal(t, []byte("y"), data)
	require.NoError(t, c.Delete(ctx, path+"/a/b", -1))
	ok, _, err := c.Exists(ctx, path+"/a/b")
	require.NoError(t, err)
	assert.False(t, ok)
	require.Eventually(t, func() bool {
		ok, _, err := c.Exists(ctx, path+"/a")
		return err == nil && !ok
	}, 15*time.Second, 50*time.Millisecond, "parents are containers: the server removes them once empty")
}

func TestClient_SequentialAndTTLNodes(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	first, err := c.Create(ctx, path+"/n-", nil, framework.PersistentSequential, framework.WithParents())
	require.NoError(t, err)
	second, err := c.Create(ctx, path+"/n-", nil, framework.PersistentSequential)
	require.NoError(t, err)
	assert.Equal(t, path+"/n-0000000000", first)
	assert.Equal(t, path+"/n-0000000001", second)

	_, err = c.Create(ctx, path+"/ttl", nil, framework.PersistentTTL, framework.WithTTL(time.Minute))
	require.NoError(t, err)
	ok, _, err := c.Exists(ctx, path+"/ttl")
	require.NoError(t, err)
	assert.True(t, ok)
}

func TestClient_MultiIsAllOrNothing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, path))
	results, err := c.Multi(ctx,
		framework.CreateOp(path+"/a", nil, framework.Persistent),
		framework.CheckOp(path+"/missing", 0))
	require.ErrorIs(t, err, zk.ErrNoNode)
	require.Len(t, results, 2)
	ok, _, err := c.Exists(ctx, path+"/a")
	require.NoError(t, err)
	assert.False(t, ok, "the failed transaction created nothing")

	results, err = c.Multi(ctx,
		framework.CreateOp(path+"/a", nil, framework.Persistent),
		framework.CreateOp(path+"/s-", nil, framework.EphemeralSequential),
		framework.SetOp(path+"/a", []byte("v"), 0))
	require.NoError(t, err)
	assert.Equal(t, path+"/a", results[0].Path)
	assert.Regexp(t, `^`+path+`/s-\d{10}$`, results[1].Path)
	assert.Equal(t, int32(1), results[2].Stat.Version)
}

func TestClient_NamespaceIsolatesPaths(t *testing.T) {
	servers := zktest.Servers(t)
	root := zktest.UniquePath(t)
	a := connect(t, servers, framework.WithNamespace(root+"/a"))
	b := connect(t, servers, framework.WithNamespace(root+"/b"))
	plain := connect(t, servers)
	ctx := testContext(t)

	got, err := a.Create(ctx, "/x", []byte("from a"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	assert.Equal(t, "/x", got, "returned paths are relative to the namespace")
	_, _, err = b.Get(ctx, "/x")
	require.ErrorIs(t, err, zk.ErrNoNode, "another namespace does not see it")
	data, _, err := plain.Get(ctx, root+"/a/x")
	require.NoError(t, err)
	assert.Equal(t, []byte("from a"), data)

	node, err := a.CreateProtected(ctx, "/locks/lock-", nil, framework.EphemeralSequential, framework.WithParents())
	require.NoError(t, err)
	assert.Regexp(t, `^/locks/_c_[0-9a-f-]{36}-lock-\d{10}$`, node.Path)
	children, _, err := plain.Children(ctx, root+"/a/locks")
	require.NoError(t, err)
	assert.Equal(t, []string{node.Name}, children)
	sp, err := a.ServerPath("/x")
	require.NoError(t, err)
	assert.Equal(t, root+"/a/x", sp)
}

// Curator writes a namespace without its slash (usingNamespace("app")):
// "app" is "/app".
func TestClient_NamespaceWithoutASlashIsTheSame(t *testing.T) {
	servers := zktest.Servers(t)
	root := zktest.UniquePath(t)
	bare := connect(t, servers, framework.WithNamespace(root[1:]))
	slashed := connect(t, servers, framework.WithNamespace(root))
	ctx := testContext(t)

	assert.Equal(t, root, bare.Namespace())
	_, err := bare.Create(ctx, "/x", []byte("v"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	data, _, err := slashed.Get(ctx, "/x")
	require.NoError(t, err)
	assert.Equal(t, []byte("v"), data)
}

func TestClient_CreatorACLKeepsOtherCredentialsOut(t *testing.T) {
	servers := zktest.Servers(t)
	owner := connect(t, servers, framework.WithAuth("digest", []byte("alice:secret")), framework.WithACLProvider(framework.CreatorACL()))
	stranger := connect(t, servers, framework.WithAuth("digest", []byte("mallory:guess")))
	ctx := testContext(t)
	root := zktest.UniquePath(t)
	require.NoError(t, stranger.EnsurePath(ctx, root))
	// ZooKeeper checks a delete against the parent's ACL: the creator-only
	// directory guards the node inside it.
	dir := root + "/private"
	_, err := owner.Create(ctx, dir+"/leaf", []byte("mine"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)

	require.ErrorIs(t, stranger.Delete(ctx, dir+"/leaf", -1), zk.ErrNoAuth)
	_, _, err = stranger.Get(ctx, dir+"/leaf")
	require.ErrorIs(t, err, zk.ErrNoAuth)
	_, err = stranger.Create(ctx, dir+"/intruder", nil, framework.Persistent)
	require.ErrorIs(t, err, zk.ErrNoAuth)
	require.NoError(t, owner.Delete(ctx, dir+"/leaf", -1))
}

// A listener removed after the client was closed (a recipe's deferred
// removal, as its goroutine ends with the client) is no panic.
func TestClient_AListenerRemovedAfterCloseIsNoPanic(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	remove := c.AddListener(func(framework.StateChange) {})
	require.NoError(t, c.Close())
	assert.NotPanics(t, remove)
}
