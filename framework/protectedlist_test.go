package framework_test

import (
	"net"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// The listing must leave before any answer comes back: the proxy holds every
// reply until the client has sent both requests.
func TestCreateProtectedAndList_ListsInTheCreatesRoundTrip(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	parent := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, parent))
	other, err := c.Create(ctx, parent+"/other", nil, framework.Persistent)
	require.NoError(t, err)
	lists := proxy.Requests(zktest.OpGetChildren2)

	proxy.HoldReplies()
	type answer struct {
		node     framework.Node
		children []string
		err      error
	}
	done := make(chan answer, 1)
	go func() {
		node, children, err := c.Hooks().CreateProtectedAndList(ctx, parent+"/lock-", nil, framework.EphemeralSequential, framework.WithParents())
		done <- answer{node, children, err}
	}()
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpGetChildren2) == lists+1 },
		5*time.Second, time.Millisecond, "the listing was not sent while the create's answer was held")
	proxy.ReleaseReplies()

	a := <-done
	require.NoError(t, a.err)
	assert.ElementsMatch(t, []string{"other", a.node.Name}, a.children)
	assert.Equal(t, lists+1, proxy.Requests(zktest.OpGetChildren2), "one listing in all")
	assert.Equal(t, parent+"/other", other)
}

// When the parents must be made first, the listing that went along with the
// first create found no parent: the caller is told to list for itself.
func TestCreateProtectedAndList_MissingParentLeavesTheListingToTheCaller(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	parent := zktest.UniquePath(t) + "/a/b"
	node, children, err := c.Hooks().CreateProtectedAndList(ctx, parent+"/lock-", nil, framework.EphemeralSequential, framework.WithParents())
	require.NoError(t, err)
	assert.Nil(t, children)
	assert.Equal(t, []string{node.Name}, zktest.Children(t, c, parent))
}

// A dialer of the caller's own is wrapped: the listing still rides along.
func TestCreateProtectedAndList_OwnDialerStillLists(t *testing.T) {
	dial := func(network, address string, timeout time.Duration) (net.Conn, error) {
		return net.DialTimeout(network, address, timeout)
	}
	c := connect(t, zktest.Servers(t), framework.WithZKOptions(zk.WithDialer(dial)))
	ctx := testContext(t)
	parent := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, parent))
	node, children, err := c.Hooks().CreateProtectedAndList(ctx, parent+"/lock-", nil, framework.EphemeralSequential)
	require.NoError(t, err)
	assert.Equal(t, []string{node.Name}, children)
	assert.Equal(t, []string{node.Name}, zktest.Children(t, c, parent))
}

func TestCreateProtectedAndList_BadInputWritesNothing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	_, _, err := c.Hooks().CreateProtectedAndList(testContext(t), "no-slash", nil, framework.EphemeralSequential)
	require.ErrorIs(t, err, framework.ErrInvalidPath)
}

// The create's answer is lost and the connection cut: the listing that rode
// along is lost with it. The call still returns exactly one node, and
// children, if any, hold it.
func TestCreateProtectedAndList_LostAnswer(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second),
		framework.WithRetryPolicy(framework.RetryForever(5*time.Millisecond)))
	ctx := testContext(t)
	parent := zktest.UniquePath(t)
	// Persistent, not a container: each round deletes the parent's only
	// child, and the server reaps an empty container within a second.
	_, err := c.Create(ctx, parent, nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	for i := range 20 {
		proxy.DropNextCreateReply()
		node, children, err := c.Hooks().CreateProtectedAndList(ctx, parent+"/lock-", nil, framework.EphemeralSequential)
		require.NoError(t, err, "create %d", i)
		if children != nil {
			assert.Contains(t, children, node.Name)
		}
		assert.Equal(t, []string{node.Name}, zktest.Children(t, c, parent), "create %d left one node", i)
		require.NoError(t, c.Delete(ctx, node.Path, -1))
	}
	assert.Equal(t, 20, proxy.DroppedReplies())
}
