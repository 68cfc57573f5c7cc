package mutex_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// newConfig creates the node that guarded writes go to, with data v0.
func newConfig(t testing.TB, c *framework.Client, path string) string {
	t.Helper()
	p, err := c.Create(testContext(t), path, []byte("v0"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	return p
}

// configData reads the config node.
func configData(t testing.TB, c *framework.Client, path string) string {
	t.Helper()
	data, _, err := c.Get(testContext(t), path)
	require.NoError(t, err)
	return string(data)
}

// requireLost checks that err is the failure of a guard of h.
func requireLost(t testing.TB, err error, h *mutex.Hold) {
	t.Helper()
	require.ErrorIs(t, err, mutex.ErrLost)
	assert.Contains(t, err.Error(), h.Node())
}

// A holder paused past its session, whose lock another client then
// acquires, writes nothing under its guard: neither the guard it took
// while holding nor one taken after. Every round ends the same way.
func TestGuard_HolderPausedPastItsSessionWritesNothing(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	holderClient := connect(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	waiterClient := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	config := newConfig(t, waiterClient, path+"-config")

	for round := range 3 {
		h, err := newMutex(t, holderClient, path).Acquire(ctx)
		require.NoError(t, err)
		taken := h.Guard()
		_, err = holderClient.Multi(ctx, taken, framework.SetOp(config, fmt.Appendf(nil, "holder-%d", round), -1))
		require.NoError(t, err, "round %d: the guard holds while the lock does", round)

		acquired := make(chan *mutex.Hold, 1)
		go func() {
			h2, err := newMutex(t, waiterClient, path).Acquire(ctx)
			if assert.NoError(t, err) {
				acquired <- h2
			}
		}()
		require.Eventually(t, func() bool { return len(children(t, waiterClient, path)) == 2 }, 10*time.Second, 10*time.Millisecond)
		proxy.Pause()
		var h2 *mutex.Hold
		select {
		case h2 = <-acquired:
		case <-time.After(30 * time.Second):
			t.Fatal("the waiter did not acquire after the holder's session expired")
		}
		proxy.Resume()

		for _, guard := range []framework.Op{taken, h.Guard()} {
			_, err = holderClient.Multi(ctx, guard, framework.SetOp(config, []byte("stale"), -1))
			requireLost(t, err, h)
		}
		_, err = waiterClient.Multi(ctx, h2.Guard(), framework.SetOp(config, fmt.Appendf(nil, "waiter-%d", round), -1))
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("waiter-%d", round), configData(t, waiterClient, config), "round %d: the stale holder wrote nothing", round)
		require.ErrorIs(t, h.Release(ctx), mutex.ErrLost)
		require.NoError(t, h2.Release(ctx))
	}
}

// A guard taken before the final release, or after it, guards nothing;
// a reentrant hold's guard lasts until the last level is released.
func TestGuard_ReleasedHoldGuardsNothing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	config := newConfig(t, c, path+"-config")
	m := newMutex(t, c, path)
	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	_, err = m.Acquire(ctx)
	require.NoError(t, err)
	taken := h.Guard()

	require.NoError(t, h.Release(ctx))
	_, err = c.Multi(ctx, h.Guard(), framework.SetOp(config, []byte("v1"), -1))
	require.NoError(t, err, "one level is still held")

	require.NoError(t, h.Release(ctx))
	for _, guard := range []framework.Op{taken, h.Guard()} {
		_, err = c.Multi(ctx, guard, framework.SetOp(config, []byte("stale"), -1))
		requireLost(t, err, h)
	}
	assert.Equal(t, "v1", configData(t, c, config))
}

// A revocation request written into the lock node does not end the hold,
// so it does not fail the hold's guard, revocable or not.
func TestGuard_RevocationRequestKeepsTheGuard(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	config := newConfig(t, c, path+"-config")
	asked := make(chan struct{}, 1)
	for name, opts := range map[string][]mutex.Option{
		"plain":     nil,
		"revocable": {mutex.WithRevocation(func(*mutex.Hold) { asked <- struct{}{} })},
	} {
		t.Run(name, func(t *testing.T) {
			h, err := newMutex(t, c, path, opts...).Acquire(ctx)
			require.NoError(t, err)
			require.NoError(t, mutex.Revoke(ctx, other, h.Node()))
			if opts != nil {
				select {
				case <-asked:
				case <-time.After(10 * time.Second):
					t.Fatal("the holder was not asked to release")
				}
			}
			_, stat, err := other.Get(ctx, h.Node())
			require.NoError(t, err)
			require.Equal(t, int32(1), stat.Version, "the request is in the node")

			_, err = c.Multi(ctx, h.Guard(), framework.SetOp(config, []byte(name), -1))
			require.NoError(t, err)
			assert.Equal(t, name, configData(t, c, config))
			require.NoError(t, h.Release(ctx))
		})
	}
}

// A hold signalled lost guards nothing from then on, even while its node
// is still on the server (the connection is suspended, the session not yet
// expired): a guard follows the hold, not only the node.
func TestGuard_HoldSignalledLostGuardsNothingWhileItsNodeRemains(t *testing.T) {
	t.Parallel()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	holderClient := connect(t, proxy.Addr(), framework.WithSessionTimeout(8*time.Second))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	config := newConfig(t, other, path+"-config")
	h, err := newMutex(t, holderClient, path).Acquire(ctx)
	require.NoError(t, err)

	proxy.Pause()
	defer proxy.Resume()
	waitClosed(t, h.Lost(), 15*time.Second, "the hold's loss channel")
	exists := func() bool {
		ok, _, err := other.Exists(ctx, h.Node())
		require.NoError(t, err)
		return ok
	}
	require.True(t, exists(), "the session has not expired yet")
	_, err = other.Multi(ctx, h.Guard(), framework.SetOp(config, []byte("stale"), -1))
	requireLost(t, err, h)
	require.True(t, exists(), "the guard failed while the node was there")
	assert.Equal(t, "v0", configData(t, other, config))
}

// A guarded transaction whose answer is lost is never reported failed
// after it ran, and never runs twice: a set is of unknown outcome or
// succeeded; protected creates are found by their ids.
func TestGuard_LostAnswerIsNeverAFailureAfterItRan(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	config := newConfig(t, other, path+"-config")
	dir := path + "-made"
	require.NoError(t, other.EnsurePath(ctx, dir))

	cases := map[string]struct {
		op    func() framework.Op
		check func(t *testing.T, err error)
	}{
		"a conditional set": {
			op: func() framework.Op { return framework.SetOp(config, []byte("v1"), 0) },
			check: func(t *testing.T, err error) {
				if err != nil {
					require.ErrorIs(t, err, framework.ErrOutcomeUnknown)
				}
				data, stat, err := other.Get(ctx, config)
				require.NoError(t, err)
				assert.Equal(t, "v1", string(data))
				assert.Equal(t, int32(1), stat.Version, "applied once")
			},
		},
		"a protected create": {
			op: func() framework.Op {
				name := zkpath.ProtectedName(zkpath.NewProtectionID(), "n-")
				return framework.CreateOp(zkpath.Join(dir, name), nil, framework.PersistentSequential)
			},
			check: func(t *testing.T, err error) {
				if err != nil {
					require.ErrorIs(t, err, framework.ErrOutcomeUnknown)
				}
				assert.Len(t, children(t, other, dir), 1, "created once")
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// The session policy: the dropped answer cuts the connection,
			// which must not end the hold.
			h, err := newMutex(t, c, zktest.UniquePath(t), mutex.WithErrorPolicy(framework.SessionErrorPolicy)).Acquire(ctx)
			require.NoError(t, err)
			dropped := proxy.DroppedRepliesOf(zktest.OpMulti)
			proxy.DropNextReply(zktest.OpMulti)
			_, err = c.Multi(ctx, h.Guard(), tc.op())
			require.Equal(t, dropped+1, proxy.DroppedRepliesOf(zktest.OpMulti))
			assert.NotErrorIs(t, err, mutex.ErrLost)
			assert.NotErrorIs(t, err, zk.ErrBadVersion)
			tc.check(t, err)
			require.NoError(t, h.Release(ctx))
		})
	}
}
