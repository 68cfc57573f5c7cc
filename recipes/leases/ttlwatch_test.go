package leases_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
)

// opGetData is the request type of a read of a node's data.
const opGetData int32 = 4

// A TTL lease's watch that reads the node before the holder's first
// renewal, and sees its answer only after the renewal's (a loaded
// machine runs the watch's goroutine late), saw an older version of the
// holder's own node: that is no take-over, and the lease is kept.
func TestTTLLease_WatchReadOlderThanTheHoldersRenewalIsNoTakeOver(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
	ctx := testContext(t)
	sent := time.Now()
	node, err := c.CreateProtected(ctx, zkpath.Join(zktest.UniquePath(t), zkpath.LeaseName), []byte("d"),
		framework.PersistentSequentialTTL, framework.WithTTL(time.Minute), framework.WithParents())
	require.NoError(t, err)

	proxy.SetAsideNextReply(opGetData) // the watch's first read
	l, err := leases.IssueTTL(c, node, 0, []byte("d"), time.Minute, sent)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return proxy.Answered(opGetData) == 1 }, 10*time.Second, 5*time.Millisecond,
		"the watch's read was answered, and set aside")
	require.NoError(t, l.Renew(ctx), "the renewal's answer comes first")
	proxy.ReleaseReplies()

	// Nothing tells that the watch has taken the old read (the proxy hands
	// the renewal's change notification over before it, which no server
	// does, so no second read follows): a lease ended on it ends within
	// milliseconds, and this waits well beyond that.
	require.Never(t, func() bool { return l.Err() != nil }, 2*time.Second, 5*time.Millisecond,
		"the holder's own older version is no take-over")
	require.NoError(t, l.Renew(ctx))
	require.NoError(t, l.Release(ctx))
}
