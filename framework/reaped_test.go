package framework_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// A create with container parents, or EnsurePath, that finds a parent
// there which vanishes before its child's create arrives (the server reaps
// a container that stands empty after it had children: here someone else
// makes it, and it is deleted as the reaper would) makes the parent again
// and the child in it, rather than failing with "node does not exist".
func TestCreate_WithParentsMakesAgainAParentReapedBeforeItsChildsCreate(t *testing.T) {
	for _, tc := range []struct {
		name string
		// first is the request whose answer says the parent is missing.
		first int32
		make  func(ctx context.Context, c *framework.Client, dir string) error
		want  string // under dir
	}{
		{"Create", zktest.OpCreate, func(ctx context.Context, c *framework.Client, dir string) error {
			_, err := c.Create(ctx, dir+"/node", nil, framework.Ephemeral, framework.WithParents())
			return err
		}, "/node"},
		{"EnsurePath", zktest.OpCreateContainer, func(ctx context.Context, c *framework.Client, dir string) error {
			return c.EnsurePath(ctx, dir+"/sub")
		}, "/sub"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			servers := zktest.Servers(t)
			proxy := zktest.NewProxy(t, servers)
			c := connect(t, proxy.Addr())
			observer := connect(t, servers)
			ctx := testContext(t)
			root := zktest.UniquePath(t)
			dir := root + "/dir"
			require.NoError(t, observer.EnsurePath(ctx, root))

			// The first create finds no dir; its answer waits.
			proxy.HoldRepliesFrom(tc.first)
			done := make(chan error, 1)
			go func() { done <- tc.make(ctx, c, dir) }() // ends when the call returns
			require.Eventually(t, func() bool { return proxy.Answered(tc.first) >= 1 }, 10*time.Second, 5*time.Millisecond)
			// Someone else makes the dir meanwhile: the client's container
			// create finds it there; that answer waits too.
			_, err := observer.Create(ctx, dir, nil, framework.Container)
			require.NoError(t, err)
			containers := proxy.Answered(zktest.OpCreateContainer)
			proxy.ReleaseRepliesHoldingFrom(zktest.OpCreateContainer)
			require.Eventually(t, func() bool { return proxy.Answered(zktest.OpCreateContainer) > containers }, 10*time.Second, 5*time.Millisecond)
			// Then the dir is reaped before its child's create arrives.
			require.NoError(t, observer.Delete(ctx, dir, -1))
			proxy.ReleaseReplies()

			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(10 * time.Second):
				t.Fatal("the call did not return")
			}
			ok, _, err := observer.Exists(ctx, dir+tc.want)
			require.NoError(t, err)
			assert.True(t, ok, "the child is there")
		})
	}
}
