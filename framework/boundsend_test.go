package framework_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// A delete bound to a session is not sent once go-zookeeper's connection
// is in a new session the client has not seen yet: it would stay applied
// there, with no one to undo it.
func TestDelete_BoundToASessionTheConnectionHasLeftIsNotSent(t *testing.T) {
	t.Parallel()
	c, observer, old, node := inANewSessionUnseen(t)
	ctx := testContext(t)

	err := c.Delete(framework.BindSession(ctx, old), node, -1)
	require.ErrorIs(t, err, framework.ErrSessionChanged)
	ok, _, err := observer.Exists(ctx, node)
	require.NoError(t, err)
	assert.True(t, ok, "the bound delete ran in the new session")
}

// Nor is a transaction bound to it: a queue's take deletes its item in
// one, under a guard of the old session's.
func TestMulti_BoundToASessionTheConnectionHasLeftIsNotSent(t *testing.T) {
	t.Parallel()
	c, observer, old, node := inANewSessionUnseen(t)
	ctx := testContext(t)

	_, err := c.Multi(framework.BindSession(ctx, old), framework.DeleteOp(node, -1))
	require.ErrorIs(t, err, framework.ErrSessionChanged)
	ok, _, err := observer.Exists(ctx, node)
	require.NoError(t, err)
	assert.True(t, ok, "the bound transaction ran in the new session")
}

// Nor is a set.
func TestSet_BoundToASessionTheConnectionHasLeftIsNotSent(t *testing.T) {
	t.Parallel()
	c, observer, old, node := inANewSessionUnseen(t)
	ctx := testContext(t)

	_, err := c.Set(framework.BindSession(ctx, old), node, []byte("new"), -1)
	require.ErrorIs(t, err, framework.ErrSessionChanged)
	data, _, err := observer.Get(ctx, node)
	require.NoError(t, err)
	assert.Equal(t, "old", string(data), "the bound set ran in the new session")
}

// inANewSessionUnseen returns a client whose go-zookeeper connection is in
// a new session while the client, its connection events held back, still
// holds the session it had (old) and takes itself as connected, and a
// persistent node with data "old", made by observer.
func inANewSessionUnseen(t *testing.T) (c, observer *framework.Client, old *framework.Session, node string) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c = zktest.Connect(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	observer = connect(t, servers)
	ctx := testContext(t)
	node = zktest.UniquePath(t)
	_, err := observer.Create(ctx, node, []byte("old"), framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	marker, err := c.Create(ctx, node+"-marker", nil, framework.Ephemeral)
	require.NoError(t, err)
	old = c.Session()
	require.NotNil(t, old)

	release := framework.HoldStates(c)
	t.Cleanup(release) // before the client's Close, which waits for its state loop
	proxy.Pause()
	// The server expires the silent session: its ephemeral marker goes.
	require.Eventually(t, func() bool {
		ok, _, err := observer.Exists(ctx, marker)
		return err == nil && !ok
	}, 30*time.Second, 20*time.Millisecond)
	proxy.Resume()
	require.Eventually(t, func() bool {
		id := framework.ConnSessionID(c)
		return id != 0 && id != old.ID()
	}, 30*time.Second, 20*time.Millisecond, "go-zookeeper never reached a new session")
	require.Equal(t, old, c.Session(), "the client saw the new session")
	return c, observer, old, node
}

// Nor is a protected create: a persistent node it made there would be
// adopted as the old session's.
func TestCreateProtected_BoundToASessionTheConnectionHasLeftIsNotSent(t *testing.T) {
	t.Parallel()
	c, observer, old, node := inANewSessionUnseen(t)
	ctx := testContext(t)

	_, err := c.CreateProtected(framework.BindSession(ctx, old), node+"/lease-", nil, framework.PersistentSequential)
	require.ErrorIs(t, err, framework.ErrSessionChanged)
	assert.Empty(t, zktest.Children(t, observer, node), "the bound create ran in the new session")
}

// A bound delete that go-zookeeper queued behind a stalled write while the
// connection was in the session, and wrote only on the next connection,
// in a new session, is refused there by the connection wrapper: every
// check the client makes before the call had passed.
func TestDelete_BoundAndQueuedIntoANewSessionIsNotApplied(t *testing.T) {
	t.Parallel()
	queueWritesIntoANewSession(t, func(ctx context.Context, c *framework.Client, node string) error {
		return c.Delete(ctx, node, -1)
	})
}

// So is a bound transaction: a queue's take, its item's delete guarded by
// the old session's lock, must not run in the new one.
func TestMulti_BoundAndQueuedIntoANewSessionIsNotApplied(t *testing.T) {
	t.Parallel()
	queueWritesIntoANewSession(t, func(ctx context.Context, c *framework.Client, node string) error {
		_, err := c.Multi(ctx, framework.DeleteOp(node, -1))
		return err
	})
}

// queueWritesIntoANewSession makes del, bound to the client's session,
// for each of several nodes while a write stalls, lets the session expire,
// and then the write go: some calls go out on the next connection, in a
// new session (see queueIntoANewSession). Each must fail with
// ErrSessionChanged, and every node must stay.
func queueWritesIntoANewSession(t *testing.T, del func(ctx context.Context, c *framework.Client, node string) error) {
	servers := zktest.Servers(t)
	d := newStallingDialer()
	c, err := framework.Connect(testContext(t), []string{servers, servers},
		framework.WithSessionTimeout(shortSession), framework.WithZKOptions(zk.WithDialer(d.dial)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	observer := connect(t, servers)
	ctx := testContext(t)
	parent := zktest.UniquePath(t)
	const queued = 8
	for i := range queued {
		_, err := observer.Create(ctx, fmt.Sprintf("%s/item-%d", parent, i), nil, framework.Persistent, framework.WithParents())
		require.NoError(t, err)
	}
	marker, err := c.Create(ctx, parent+"-marker", nil, framework.Ephemeral)
	require.NoError(t, err)
	bound := framework.BindSession(ctx, c.Session())

	d.arm()
	go func() { _, _, _ = c.Exists(ctx, parent) }() // its write stalls
	<-d.stalled
	done := make(chan error, queued)
	for i := range queued {
		go func() { done <- del(bound, c, fmt.Sprintf("%s/item-%d", parent, i)) }()
	}
	require.Eventually(t, func() bool {
		ok, _, err := observer.Exists(ctx, marker)
		return err == nil && !ok
	}, 30*time.Second, 20*time.Millisecond)
	close(d.release)

	for range queued {
		select {
		case err := <-done:
			require.ErrorIs(t, err, framework.ErrSessionChanged)
		case <-time.After(30 * time.Second):
			t.Fatal("a call never answered")
		}
	}
	assert.Len(t, zktest.Children(t, observer, parent), queued, "a bound write ran in the new session")
}

// A bound create queued into a new session is refused there too, not made
// and then deleted: with the client's background deletes held, no node is
// ever seen.
func TestCreate_BoundAndQueuedIntoANewSessionIsNeverMade(t *testing.T) {
	t.Parallel()
	var hold sync.Once
	queueIntoANewSession(t, false, func(ctx context.Context, parent string) error {
		c := newClientOf(ctx)
		hold.Do(func() { _, _ = framework.HoldBackgroundDeletes(c) }) // released by Close
		_, err := c.Create(ctx, parent+"/lease-", nil, framework.EphemeralSequential)
		return err
	})
}
