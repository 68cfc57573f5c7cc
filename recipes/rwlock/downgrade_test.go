package rwlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/rwlock"
)

// sequence is the last ten characters of a lock node's path: its sort key.
func sequence(p string) string { return p[len(p)-10:] }

// An operator deletes the write node, and the writer queued behind it
// holds: the former write holder's downgrade must not take the place of a
// node that is gone, which would make a reader hold beside that writer.
// It fails with the loss, whether or not the write hold has noticed it.
func TestDowngrade_OntoADeletedWriteNodeFailsWithTheLoss(t *testing.T) {
	servers := zktest.Servers(t)
	operator := connect(t, servers)
	for _, noticed := range []bool{false, true} {
		ctx := testContext(t)
		path := zktest.UniquePath(t)
		rw := newRW(t, connect(t, servers), path)
		w, err := rw.WriteLock().Acquire(ctx)
		require.NoError(t, err)
		writer := start(newRW(t, connect(t, servers), path).WriteLock())
		queued(t, operator, path, 2)
		require.NoError(t, operator.Delete(ctx, w.Node(), -1))
		wh := writer.held(t, "the writer queued behind the deleted node")
		if noticed {
			waitClosed(t, w.Lost(), 10*time.Second, "the write hold's loss")
		}

		_, err = rw.ReadLock().AcquireTimeout(ctx, 2*time.Second)
		require.ErrorIs(t, err, rwlock.ErrLost, "noticed %v", noticed)
		assert.Equal(t, []string{zkpath.Base(wh.Node())}, children(t, operator, path),
			"no read node beside the writer that holds (noticed %v)", noticed)
		if err := w.Release(ctx); noticed {
			require.ErrorIs(t, err, rwlock.ErrLost)
		}
		writer.finish(t)
	}
}

// One explicit owner releases its write lock in one goroutine while it
// takes the read lock in another, with a writer of another process queued
// behind: either the downgrade comes first and its read node keeps the
// place while the write node is still there, or the release comes first
// and the read acquire queues behind the other writer. A read node at the
// writer's place is never created after the write node is gone: the
// directory's last change of children (pzxid) is then the write node's
// deletion, after the read node's creation.
func TestDowngrade_ConcurrentReleaseByTheSameOwner(t *testing.T) {
	servers := zktest.Servers(t)
	c := connect(t, servers)
	ctx := testContext(t)
	for i := range 20 {
		path := zktest.UniquePath(t) + "-" + string(rune('a'+i))
		rw := newRW(t, c, path)
		job := rwlock.ContextWithOwner(ctx, "job")
		w, err := rw.WriteLock().Acquire(job)
		require.NoError(t, err)
		writer := start(newRW(t, connect(t, servers), path).WriteLock())
		queued(t, c, path, 2)

		released := make(chan error, 1)
		read := make(chan result, 1)
		release := rw.WriteLock().Release
		if i%2 == 1 {
			release = w.Release // a Hold's release takes the turn too
		}
		go func() { released <- release(job) }() // ends with the release
		go func() {                              // ends when the read lock is held, or with ctx
			h, err := rw.ReadLock().Acquire(job)
			read <- result{h, err}
		}()
		require.NoError(t, <-released)

		var r result
		select {
		case r = <-read: // the downgrade came first
			require.NoError(t, r.err)
			require.Equal(t, sequence(w.Node()), sequence(r.h.Node()), "iteration %d: a reader that queued holds before the writer in front", i)
			_, node, err := c.Get(ctx, r.h.Node())
			require.NoError(t, err)
			_, dir, err := c.Get(ctx, path)
			require.NoError(t, err)
			require.Greater(t, dir.Pzxid, node.Czxid, "iteration %d: the read node was created after the write node was gone", i)
			writer.notHeld(t, 50*time.Millisecond, "a writer beside the downgraded reader")
			require.NoError(t, r.h.Release(job))
			writer.held(t, "the writer")
			writer.finish(t)
		case <-writer.holds: // the release came first: the reader queued behind
			close(writer.release)
			r = <-read
			require.NoError(t, r.err)
			assert.NotEqual(t, sequence(w.Node()), sequence(r.h.Node()), "iteration %d", i)
			require.NoError(t, r.h.Release(job))
		case <-time.After(20 * time.Second):
			t.Fatalf("iteration %d: neither the downgrade nor the writer holds", i)
		}
		require.Eventually(t, func() bool { return len(children(t, c, path)) == 0 }, 10*time.Second, 5*time.Millisecond)
	}
}

// The answer to the downgrade's transaction is lost and the connection
// cut; the session lives on. The client sends the transaction again, which
// now fails on the read node the first run made: the downgrade still
// holds, with that one node, and a writer behind stays out.
func TestDowngrade_LostAnswerToItsTransaction(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr())
	observer := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	rw := newRW(t, c, path, rwlock.WithErrorPolicy(framework.SessionErrorPolicy))
	w, err := rw.WriteLock().Acquire(ctx)
	require.NoError(t, err)
	writer := start(newRW(t, connect(t, servers), path).WriteLock())
	queued(t, observer, path, 2)

	proxy.DropNextCreateReply()
	r, err := rw.ReadLock().Acquire(ctx)
	require.NoError(t, err, "the transaction ran once, whatever the retry says")
	require.Equal(t, 1, proxy.DroppedReplies())
	assert.Equal(t, sequence(w.Node()), sequence(r.Node()))
	assert.Len(t, children(t, observer, path), 3, "the write node, one read node, the writer behind")
	require.NoError(t, w.Release(ctx))
	writer.notHeld(t, 300*time.Millisecond, "a writer beside the downgraded reader")
	require.NoError(t, r.Release(ctx))
	writer.held(t, "the writer")
	writer.finish(t)
	require.Eventually(t, func() bool { return len(children(t, observer, path)) == 0 }, 10*time.Second, 5*time.Millisecond)
}

// A downgrade whose caller's context has ended before it answers leaves
// no read node behind.
func TestDowngrade_CancelledLeavesNothing(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr())
	observer := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	rw := newRW(t, c, path, rwlock.WithErrorPolicy(framework.SessionErrorPolicy))
	w, err := rw.WriteLock().Acquire(ctx)
	require.NoError(t, err)

	proxy.HoldReplies()
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, err = rw.ReadLock().Acquire(short)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	proxy.ReleaseReplies()
	require.Eventually(t, func() bool { return len(children(t, observer, path)) == 1 }, 10*time.Second, 5*time.Millisecond,
		"only the write node is left")
	assert.Nil(t, rw.ReadLock().Held(ctx))
	require.NoError(t, w.Release(ctx))
}

// A release takes its owner's turn, but an owner's acquire that waits in
// the queue holds the turn for as long as it waits: the release waits for
// it only a bounded time, then goes on, so it never hangs on its owner.
func TestDowngrade_ReleaseBesideTheOwnersWaitingAcquireGoesOn(t *testing.T) {
	t.Parallel()
	servers := zktest.Servers(t)
	c := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	blocker := start(newRW(t, connect(t, servers), path).WriteLock())
	blocker.held(t, "the writer that makes the owner wait")
	rw := newRW(t, c, path)
	job := rwlock.ContextWithOwner(ctx, "job-11")
	write := make(chan result, 1)
	go func() { // ends when the write acquire does, at the latest with ctx
		h, err := rw.WriteLock().Acquire(job)
		write <- result{h, err}
	}()
	queued(t, c, path, 2)

	released := make(chan error, 1)
	go func() { released <- rw.ReadLock().Release(job) }() // ends with the release
	select {
	case err := <-released:
		require.ErrorIs(t, err, rwlock.ErrNotOwner)
	case <-time.After(20 * time.Second):
		t.Fatal("a release waits for its owner's acquire in the queue")
	}
	blocker.finish(t)
	w := <-write
	require.NoError(t, w.err)
	require.NoError(t, w.h.Release(job))
	assert.Empty(t, children(t, c, path))
}

// The downgrade's transaction is applied, its answer lost, and the write
// node deleted before the client sends it again: the second run fails on
// the check, but the first one took the place while the write node was
// there, so the downgrade holds, and the writer behind, which sees the
// read node in its way, stays out until it is released.
func TestDowngrade_LostAnswerThenTheWriteNodeGoes(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr())
	observer := connect(t, servers)
	ctx := rwlock.ContextWithOwner(testContext(t), "job-12") // one owner in two goroutines
	path := zktest.UniquePath(t)
	rw := newRW(t, c, path, rwlock.WithErrorPolicy(framework.SessionErrorPolicy))
	w, err := rw.WriteLock().Acquire(ctx)
	require.NoError(t, err)
	writer := start(newRW(t, connect(t, servers), path).WriteLock())
	queued(t, observer, path, 2)

	proxy.HoldRepliesFrom(opMulti)
	read := make(chan result, 1)
	go func() { // ends when the downgrade does
		h, err := rw.ReadLock().Acquire(ctx)
		read <- result{h, err}
	}()
	queued(t, observer, path, 3) // the first run is applied
	require.NoError(t, observer.Delete(ctx, w.Node(), -1))
	proxy.Cut()
	proxy.ReleaseReplies()

	r := <-read
	require.NoError(t, r.err, "the first run took the place")
	require.EqualValues(t, 1, proxy.Requests(opMulti), "the lost run was found by its protection id, not sent again")
	assert.Equal(t, sequence(w.Node()), sequence(r.h.Node()))
	writer.notHeld(t, 300*time.Millisecond, "a writer beside the downgraded reader")
	require.NoError(t, r.h.Release(ctx))
	writer.held(t, "the writer")
	writer.finish(t)
	_ = w.Release(ctx)
	require.Eventually(t, func() bool { return len(children(t, observer, path)) == 0 }, 10*time.Second, 5*time.Millisecond)
}
