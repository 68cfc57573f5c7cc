package leases_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// guardedWrite sets the node at config to data under guard.
func guardedWrite(t testing.TB, c *framework.Client, guard framework.Op, config, data string) error {
	t.Helper()
	_, err := c.Multi(testContext(t), guard, framework.SetOp(config, []byte(data), -1))
	return err
}

// requireGuardLost checks that err is the failure of a guard of l, and
// that config still holds want.
func requireGuardLost(t testing.TB, err error, l *leases.Lease, c *framework.Client, config, want string) {
	t.Helper()
	require.ErrorIs(t, err, leases.ErrLost)
	assert.Contains(t, err.Error(), l.Node())
	data, _, err := c.Get(testContext(t), config)
	require.NoError(t, err)
	assert.Equal(t, want, string(data), "the failed transaction wrote nothing")
}

// newConfig creates the node that guarded writes go to, with data v0.
func newConfig(t testing.TB, c *framework.Client, path string) string {
	t.Helper()
	p, err := c.Create(testContext(t), path, []byte("v0"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	return p
}

// A semaphore's lease guards writes while it is held, its renewals
// (which write into its node) included, and nothing once released.
func TestGuard_SemaphoreLeaseGuardsWritesUntilReleased(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	config := newConfig(t, c, path+"-config")
	s, err := semaphore.New(c, path, 1, semaphore.WithMaxHold(time.Minute))
	require.NoError(t, err)
	l, err := s.Acquire(ctx)
	require.NoError(t, err)
	taken := l.Guard()
	require.NoError(t, guardedWrite(t, c, taken, config, "v1"))
	require.NoError(t, l.Renew(ctx))
	require.NoError(t, guardedWrite(t, c, taken, config, "v2"), "a renewal does not end the lease")

	require.NoError(t, l.Release(ctx))
	for _, guard := range []framework.Op{taken, l.Guard()} {
		requireGuardLost(t, guardedWrite(t, c, guard, config, "stale"), l, c, config, "v2")
	}
}

// A TTL lease's guard pins the version its holder last wrote: it holds
// across the holder's renewals when taken again, and fails once another
// client has taken the lease over with Resume, before the earlier holder
// has even heard of it; the new holder's guard holds.
func TestGuard_TTLLeaseGuardFailsAfterATakeOver(t *testing.T) {
	servers := zktest.Servers(t)
	first, second := connect(t, servers), connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	config := newConfig(t, first, path+"-config")
	old, err := ttlSemaphore(t, first, path).Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, guardedWrite(t, first, old.Guard(), config, "v1"))
	beforeRenewal := old.Guard()
	require.NoError(t, old.Renew(ctx))
	require.NoError(t, guardedWrite(t, first, old.Guard(), config, "v2"), "a guard taken after the renewal")
	requireGuardLost(t, guardedWrite(t, first, beforeRenewal, config, "stale"), old, first, config, "v2")

	taken := old.Guard()
	resumed, err := ttlSemaphore(t, second, path).Resume(ctx, zkpath.Base(old.Node()))
	require.NoError(t, err)
	requireGuardLost(t, guardedWrite(t, first, taken, config, "stale"), old, first, config, "v2")
	waitClosed(t, old.Lost(), 10*time.Second, "the earlier holder's loss")
	requireGuardLost(t, guardedWrite(t, first, old.Guard(), config, "stale"), old, first, config, "v2")

	require.NoError(t, guardedWrite(t, second, resumed.Guard(), config, "v3"))
	require.NoError(t, resumed.Release(ctx))
	requireGuardLost(t, guardedWrite(t, second, resumed.Guard(), config, "stale"), resumed, second, config, "v3")
}

// A guard taken while the holder's own renewal is on its way fails once
// the renewal has landed: a false "lost", never a false "held"; taken
// again after the renewal's answer, it holds.
func TestGuard_TTLLeaseGuardTakenDuringARenewal(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
	observer := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	config := newConfig(t, observer, path+"-config")
	l, err := ttlSemaphore(t, c, path).Acquire(ctx)
	require.NoError(t, err)

	proxy.HoldRepliesFrom(opSetData)
	renewed := make(chan error, 1)
	go func() { renewed <- l.Renew(ctx) }() // ends when the renewal returns
	require.Eventually(t, func() bool {
		_, stat, err := observer.Get(ctx, l.Node())
		return assert.NoError(t, err) && stat.Version == 1
	}, 10*time.Second, 5*time.Millisecond, "the renewal's write was applied")
	during := l.Guard()
	requireGuardLost(t, guardedWrite(t, observer, during, config, "stale"), l, observer, config, "v0")

	proxy.ReleaseReplies()
	select {
	case err = <-renewed:
	case <-time.After(30 * time.Second):
		t.Fatal("the renewal did not return")
	}
	require.NoError(t, err)
	require.NoError(t, guardedWrite(t, observer, l.Guard(), config, "v1"))
	require.NoError(t, l.Release(ctx))
}
