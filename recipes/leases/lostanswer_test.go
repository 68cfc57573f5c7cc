package leases_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// A renewal whose write the server applied but whose answer was lost is a
// renewal: its retry meets the version its own write made, and the write
// is recognised as the holder's own, not reported as not renewed nor as a
// take-over. The next renewal goes on from the version that write made.
func TestRenew_LostAnswerToItsWriteIsStillARenewal(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
	observer := connect(t, servers)
	ctx := testContext(t)
	l, err := ttlSemaphore(t, c, zktest.UniquePath(t)).Acquire(ctx)
	require.NoError(t, err)

	proxy.HoldRepliesFrom(opSetData)
	renewed := make(chan error, 1)
	go func() { renewed <- l.Renew(ctx) }() // ends when the renewal returns
	require.Eventually(t, func() bool {
		_, stat, err := observer.Get(ctx, l.Node())
		return assert.NoError(t, err) && stat.Version == 1
	}, 10*time.Second, 5*time.Millisecond, "the renewal's write was applied")
	proxy.Cut() // the answer is lost with its connection
	proxy.ReleaseReplies()

	select {
	case err = <-renewed:
	case <-time.After(30 * time.Second):
		t.Fatal("the renewal did not return")
	}
	require.NoError(t, err, "the holder's own write is a renewal")
	require.NoError(t, l.Err())
	require.NoError(t, l.Renew(ctx), "the next renewal writes on the version the lost one made")
	_, stat, err := observer.Get(ctx, l.Node())
	require.NoError(t, err)
	assert.Equal(t, int32(2), stat.Version)
	require.NoError(t, l.Release(ctx))
}

// A release whose delete the server applied but whose answer was lost
// returns the lease: its retry finds the node gone, which a read shows,
// and the node is not reported as left to the server.
func TestRelease_LostAnswerToItsDeleteReleasesTheLease(t *testing.T) {
	const opDelete int32 = 2
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
	observer := connect(t, servers)
	ctx := testContext(t)
	l, err := ttlSemaphore(t, c, zktest.UniquePath(t)).Acquire(ctx)
	require.NoError(t, err)

	proxy.HoldRepliesFrom(opDelete)
	released := make(chan error, 1)
	go func() { released <- l.Release(ctx) }() // ends when the release returns
	require.Eventually(t, func() bool {
		ok, _, err := observer.Exists(ctx, l.Node())
		return assert.NoError(t, err) && !ok
	}, 10*time.Second, 5*time.Millisecond, "the release's delete was applied")
	proxy.Cut() // the answer is lost with its connection
	proxy.ReleaseReplies()

	select {
	case err = <-released:
	case <-time.After(30 * time.Second):
		t.Fatal("the release did not return")
	}
	require.NoError(t, err, "the node is gone: the lease is released")
}
