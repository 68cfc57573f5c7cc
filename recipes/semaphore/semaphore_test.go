package semaphore_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

func TestSemaphore_AcquireReleaseLeavesNothing(t *testing.T) {
	servers := zktest.Servers(t)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 2, semaphore.WithData([]byte("host-1/42")))

	l, err := s.Acquire(ctx)
	require.NoError(t, err)
	assert.Regexp(t, leaseNode, zkpath.Base(l.Node()))
	assert.Equal(t, path+"/leases", zkpath.Parent(l.Node()))
	assert.Equal(t, []byte("host-1/42"), l.Data())
	assert.NoError(t, l.Err())
	ps, err := s.Participants(ctx)
	require.NoError(t, err)
	assert.Equal(t, []semaphore.Participant{{Node: l.Node(), ID: "host-1/42"}}, ps)
	assert.Empty(t, children(t, c, path+"/locks"), "the guard is released once the lease is held")

	require.NoError(t, l.Release(ctx))
	require.NoError(t, l.Release(ctx), "releasing twice is harmless")
	assert.Error(t, l.Err(), "a released lease says so")
	assert.Equal(t, 0, nodeCount(t, c, path))
	ps, err = s.Participants(ctx)
	require.NoError(t, err)
	assert.Empty(t, ps)
}

// An uncontended acquire and release cost 5 requests: guard create and
// list, the lease transaction (create and count), guard delete, and the
// lease's delete.
func TestSemaphore_UncontendedAcquireReleaseCostsFiveRequests(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 3)
	keepDirectories(t, path, 3)

	const cycles = 10
	before := requests()
	for range cycles {
		l, err := s.Acquire(ctx)
		require.NoError(t, err)
		require.NoError(t, l.Release(ctx))
	}
	assert.Equal(t, int64(5*cycles), requests()-before, "requests for %d cycles", cycles)
}

func TestSemaphore_ThirdAcquirerWaitsUntilARelease(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 2)
	first, err := s.Acquire(ctx)
	require.NoError(t, err)
	second, err := s.Acquire(ctx)
	require.NoError(t, err)

	waiter := newSemaphore(t, other, path, 2)
	got := make(chan result[*leases.Lease], 1)
	go func() { // ends when the acquire returns: after a return, or when ctx ends
		l, err := waiter.Acquire(ctx)
		got <- result[*leases.Lease]{l, err}
	}()
	require.Eventually(t, func() bool { return len(children(t, c, path+"/leases")) == 3 }, 10*time.Second, 10*time.Millisecond,
		"the third acquirer counts with its lease node")
	select {
	case r := <-got:
		t.Fatalf("a third lease was granted with a maximum of 2: %+v", r)
	default:
	}
	require.NoError(t, first.Release(ctx))
	select {
	case r := <-got:
		require.NoError(t, r.err)
		assert.Len(t, children(t, c, path+"/leases"), 2)
		require.NoError(t, r.v.Release(ctx))
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not get the released lease")
	}
	require.NoError(t, second.Release(ctx))
	assert.Equal(t, 0, nodeCount(t, c, path))
}

func TestSemaphore_TimedOutAcquireIsNotAcquiredAndLeavesNothing(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	held, err := newSemaphore(t, c, path, 1).Acquire(ctx)
	require.NoError(t, err)

	s := newSemaphore(t, other, path, 1)
	start := time.Now()
	l, err := s.AcquireTimeout(ctx, heldTimeout)
	require.ErrorIs(t, err, semaphore.ErrNotAcquired)
	assert.Nil(t, l)
	assert.GreaterOrEqual(t, time.Since(start), heldTimeout)
	_, err = s.AcquireNTimeout(ctx, 1, 0)
	require.ErrorIs(t, err, semaphore.ErrNotAcquired, "a zero timeout is an immediate try")
	require.Eventually(t, func() bool {
		return assert.ObjectsAreEqual([]string{zkpath.Base(held.Node())}, children(t, c, path+"/leases")) &&
			len(children(t, c, path+"/locks")) == 0
	}, 10*time.Second, 10*time.Millisecond, "only the holder's lease remains")
	require.NoError(t, held.Release(ctx))
}

// Curator's CURATOR-462: an acquire interrupted while it waits left an
// orphan lease.
func TestSemaphore_CancelledWaitLeavesNoOrphan(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	held, err := newSemaphore(t, c, path, 1).Acquire(ctx)
	require.NoError(t, err)

	s := newSemaphore(t, other, path, 1)
	waitCtx, cancel := context.WithCancel(ctx)
	got := make(chan error, 1)
	go func() { // ends when the acquire returns, at the cancel at the latest
		_, err := s.Acquire(waitCtx)
		got <- err
	}()
	require.Eventually(t, func() bool { return len(children(t, c, path+"/leases")) == 2 }, 10*time.Second, 10*time.Millisecond)
	cancel()
	select {
	case err := <-got:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled acquire did not return")
	}
	require.Eventually(t, func() bool {
		return len(children(t, c, path+"/leases")) == 1 && len(children(t, c, path+"/locks")) == 0
	}, 10*time.Second, 10*time.Millisecond, "the waiter's lease and guard nodes are gone")
	require.NoError(t, held.Release(ctx))
	l, err := s.AcquireTimeout(ctx, 5*time.Second)
	require.NoError(t, err, "the semaphore is not deadlocked by an orphan")
	require.NoError(t, l.Release(ctx))
}

func TestSemaphore_LeaseLostWhenItsNodeIsDeleted(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	s := newSemaphore(t, c, zktest.UniquePath(t), 1)
	l, err := s.Acquire(ctx)
	require.NoError(t, err)
	lost := l.Lost()
	require.NoError(t, c.Delete(ctx, l.Node(), -1), "an operator deletes the lease node")
	waitClosed(t, lost, 10*time.Second, "the lease's loss channel")
	require.ErrorIs(t, l.Err(), semaphore.ErrLost)
	require.ErrorIs(t, l.Release(ctx), semaphore.ErrLost, "the first release after a loss says so")
	require.NoError(t, l.Release(ctx))
	l2, err := s.AcquireTimeout(ctx, 5*time.Second)
	require.NoError(t, err)
	require.NoError(t, l2.Release(ctx))
}

// A lease handed out after another was released has a greater fencing
// token, and a lease reads its token once.
func TestLease_FencingTokenGrowsFromLeaseToLease(t *testing.T) {
	servers, requests := zktest.Counted(t)
	c := connect(t, servers)
	ctx := testContext(t)
	s := newSemaphore(t, c, zktest.UniquePath(t), 2)
	token := func(l *leases.Lease) int64 {
		t.Helper()
		v, err := l.FencingToken(ctx)
		require.NoError(t, err)
		return v
	}
	first, err := s.Acquire(ctx)
	require.NoError(t, err)
	second, err := s.Acquire(ctx)
	require.NoError(t, err)
	firstToken, secondToken := token(first), token(second)
	before := requests()
	assert.Equal(t, firstToken, token(first), "the token is remembered")
	assert.Equal(t, before, requests(), "a second read sends nothing")
	assert.Greater(t, secondToken, firstToken)

	require.NoError(t, first.Release(ctx))
	third, err := s.Acquire(ctx)
	require.NoError(t, err)
	assert.Greater(t, token(third), secondToken, "above every lease handed out before")
	require.NoError(t, leases.ReleaseAll(ctx, second, third))
}

func TestMutex_NotReentrantAndReleasableByAnyGoroutine(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	m, err := semaphore.NewMutex(c, path)
	require.NoError(t, err)
	l, err := m.Acquire(ctx)
	require.NoError(t, err)
	assert.True(t, m.IsAcquiredInThisProcess())
	assert.Regexp(t, leaseNode, zkpath.Base(l.Node()))
	assert.Equal(t, path+"/leases", zkpath.Parent(l.Node()))

	_, err = m.AcquireTimeout(ctx, heldTimeout)
	require.ErrorIs(t, err, semaphore.ErrNotAcquired, "not reentrant: the same goroutine waits")

	released := make(chan error, 1)
	go func() { released <- m.Release(ctx) }() // ends after one release
	require.NoError(t, <-released, "another goroutine releases")
	assert.False(t, m.IsAcquiredInThisProcess())
	require.ErrorIs(t, m.Release(ctx), semaphore.ErrNotOwner, "nothing left to release")
	assert.Equal(t, 0, nodeCount(t, c, path))

	_, err = m.AcquireTimeout(ctx, 5*time.Second)
	require.NoError(t, err)
	require.NoError(t, m.Release(ctx))
}

// Curator needs only the create permission on the leases directory. Where
// the ACL refuses writes to it, the lease transaction cannot count the
// leases: the semaphore counts by listing instead.
func TestSemaphore_CountsByListingWhereTheDirectoryIsReadOnly(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	noWrite := []zk.ACL{{Perms: zk.PermCreate | zk.PermRead | zk.PermDelete, Scheme: "world", ID: "anyone"}}
	_, err := c.Create(ctx, path+"/leases", nil, framework.Persistent, framework.WithParents(), framework.WithACL(noWrite))
	require.NoError(t, err)
	_, err = c.Set(ctx, path+"/leases", nil, -1)
	require.ErrorIs(t, err, zk.ErrNoAuth, "the directory is read-only")

	s := newSemaphore(t, c, path, 1)
	for range 3 {
		l, err := s.AcquireTimeout(ctx, 5*time.Second)
		require.NoError(t, err)
		_, err = s.AcquireTimeout(ctx, heldTimeout)
		require.ErrorIs(t, err, semaphore.ErrNotAcquired)
		require.NoError(t, l.Release(ctx))
	}
	require.NoError(t, c.Delete(ctx, path+"/leases", -1))
}

func TestSemaphore_WorksInANamespace(t *testing.T) {
	ns := zktest.UniquePath(t)
	c := connect(t, zktest.Servers(t), framework.WithNamespace(ns))
	root := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	s := newSemaphore(t, c, "/sem", 2)
	ls, err := s.AcquireN(ctx, 2)
	require.NoError(t, err)
	for _, l := range ls {
		assert.Equal(t, "/sem/leases", zkpath.Parent(l.Node()))
	}
	assert.Len(t, children(t, root, ns+"/sem/leases"), 2, "the nodes live under the namespace")
	_, err = s.AcquireTimeout(ctx, heldTimeout)
	require.ErrorIs(t, err, semaphore.ErrNotAcquired)
	require.NoError(t, s.Release(ctx, ls...))
	assert.Empty(t, children(t, root, ns+"/sem/leases"))
}
