package sharedcount_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// A watch goes on after a read that the client's retry policy gave up on
// (here at once: its answer was lost with its connection, under NoRetry):
// the last value stands, the watch reads again, and it ends only with its
// ctx or the client, as CONTRIBUTING.md's "told of changes" has it and as
// the leader's Watch does.
func TestSharedCount_WatchGoesOnAfterAReadTheRetryPolicyGaveUpOn(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second),
		framework.WithRetryPolicy(framework.NoRetry()))
	other := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	ch, err := newCount(t, c, path, 1).Watch(ctx)
	require.NoError(t, err)
	assert.Equal(t, int32(1), next(t, ch).Count)

	reads := proxy.Answered(zktest.OpGetData)
	proxy.DropNextReply(zktest.OpGetData) // the read after the change
	require.NoError(t, newCount(t, other, path, 0).Set(ctx, 5))
	require.Eventually(t, func() bool { return proxy.DroppedRepliesOf(zktest.OpGetData) == 1 },
		10*time.Second, 5*time.Millisecond, "the read after the change lost its answer")
	require.Eventually(t, c.IsConnected, 20*time.Second, 10*time.Millisecond)

	require.NoError(t, newCount(t, other, path, 0).Set(ctx, 7))
	v := next(t, ch)
	for v.Count != 7 {
		v = next(t, ch)
	}
	assert.Greater(t, proxy.Answered(zktest.OpGetData), reads, "read again after the failed read")
}
