package reliability_test

import (
	"context"
	"errors"
	"io"
	"log"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/reliability/internal/chaos"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// TestCurator604_AHoldOnANodeOfALeftSessionIsVettedStale replays the Java
// side of an overlap the chaos run found: Curator 5.4 waits for a mutex
// while the server is gone for longer than its session timeout, injects an
// expiry of its own and takes a new session, but its lock loop goes on with
// the node of the session it left, which the server has not expired (it
// was down). Once the node in front goes, Curator holds with that node;
// when the server expires the old session it deletes the node and lets the
// next waiter in, and Curator never learns of it (CURATOR-604). The chaos
// run's vetting of a Curator hold must call such a hold stale, so that the
// overlap is reported as the Java side's and no fault of ours is hidden.
func TestCurator604_AHoldOnANodeOfALeftSessionIsVettedStale(t *testing.T) {
	t.Parallel()
	ctx := zktest.Context(t)
	// Once the server is back, the replay must run its course before the
	// server expires the session Curator left: it lasts Curator's timeout
	// (10 s), and under load the restart alone took 9 s of it, so that the
	// left node was gone before Curator's lock loop looked, and Curator
	// queued afresh. A 10 s tick makes the server grant at least 20 s.
	server := zktest.NewServer(t, zktesting.WithTickTime(10*time.Second))
	curator := zktest.StartCurator(t, server.Addr())
	// Sessions that outlive the server's stop: the node in front, and the
	// observer that vets and then waits behind Curator.
	front, _, err := zk.Connect([]string{server.Addr()}, 40*time.Second, zk.WithLogInfo(false),
		zk.WithLogger(log.New(io.Discard, "", 0)), zk.WithDialer(zktest.BoundedHandshake(2*time.Second)))
	require.NoError(t, err)
	t.Cleanup(front.Close)
	observer := zktest.Connect(t, server.Addr(), framework.WithSessionTimeout(40*time.Second))
	path := "/curator604" // the server is the test's own
	_, err = front.Create(path, nil, 0, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)
	frontNode, err := front.Create(path+"/_c_00000000-0000-0000-0000-000000000000-lock-", nil,
		zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
	require.NoError(t, err)

	type acquired struct {
		ok  bool
		err error
	}
	got := make(chan acquired, 1)
	go func() { // ends when the peer answers, at the latest when it is stopped
		ok, _, err := curator.MutexAcquireAt(ctx, "c", path, -1)
		got <- acquired{ok, err}
	}()
	require.Eventually(t, func() bool { return len(zktest.Children(t, observer, path)) == 2 },
		10*time.Second, 20*time.Millisecond, "Curator never queued")
	left, err := curator.Session(ctx)
	require.NoError(t, err)

	// Curator injects its expiry after a session timeout spent suspended.
	require.NoError(t, server.Stop())
	require.Eventually(t, func() bool {
		id, err := curator.Session(ctx)
		return err == nil && id != left
	}, 40*time.Second, 100*time.Millisecond, "Curator never left its session")
	require.NoError(t, server.Restart(ctx))
	require.Eventually(t, func() bool {
		id, err := curator.Session(ctx)
		return err == nil && id != 0
	}, 30*time.Second, 100*time.Millisecond, "Curator never took a new session")

	// go-zookeeper fails a request with ErrNoServer while its client is
	// still between attempts to reconnect; NoNode is a delete of ours
	// whose answer was lost that way.
	require.Eventually(t, func() bool {
		err := front.Delete(frontNode, -1)
		return err == nil || errors.Is(err, zk.ErrNoNode)
	}, 30*time.Second, 100*time.Millisecond, "the node in front was never deleted")
	var r acquired
	select {
	case r = <-got:
	case <-time.After(30 * time.Second):
		// The replay races Curator's lock loop against the server's
		// expiry of the session Curator left; on a loaded machine Curator
		// sometimes never holds (a CI run, 2026-11-28): the overlap this
		// test replays did not happen, and there is no stale hold to vet.
		t.Skip("Curator did not take the mutex once the node in front was gone: the replay's race went the other way")
	}
	require.NoError(t, r.err)
	require.True(t, r.ok)
	vetting, err := chaos.VetPeerHold(ctx, curator, observer, "c", "mutex")
	require.NoError(t, err)
	assert.Contains(t, vetting.Stale, "CURATOR-604", "Curator holds with the node of the session it left: %+v", vetting)

	// The double hold itself: the server expires the left session, and a
	// waiter behind Curator's node acquires while Curator still holds.
	m, err := mutex.New(observer, path)
	require.NoError(t, err)
	wctx, cancel := context.WithTimeout(ctx, 40*time.Second)
	defer cancel()
	hold, err := m.Acquire(wctx)
	require.NoError(t, err, "the next waiter never acquired after the left session's expiry")
	require.NoError(t, hold.Release(ctx))
	require.NoError(t, curator.MutexRelease(ctx, "c"))
}
