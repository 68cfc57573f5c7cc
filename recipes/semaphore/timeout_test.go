package semaphore_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// A zero or negative timeout is one attempt: a free lease is taken, and
// with none free the answer is ErrNotAcquired with nothing left behind.
func TestSemaphore_ZeroTimeoutIsOneAttempt(t *testing.T) {
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 1)
	for _, timeout := range []time.Duration{0, -time.Second} {
		l, err := s.AcquireTimeout(ctx, timeout)
		require.NoError(t, err, "a free lease is taken with timeout %v", timeout)
		require.NoError(t, s.Release(ctx, l))
	}
	held, err := s.Acquire(ctx)
	require.NoError(t, err)
	other := newSemaphore(t, connect(t, zktest.Servers(t)), path, 1)
	_, err = other.AcquireTimeout(ctx, 0)
	require.ErrorIs(t, err, semaphore.ErrNotAcquired)
	assert.Len(t, children(t, c, path+"/leases"), 1, "the attempt left no lease node")
	assert.Empty(t, children(t, c, path+"/locks"), "nor a guard node")
	require.NoError(t, s.Release(ctx, held))
}

// A timed acquire that waited on held leases is not acquired; one that
// could not reach the server says so.
func TestSemaphore_TimeoutTellsContentionFromAnOutage(t *testing.T) {
	t.Parallel()
	c := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	held, err := newSemaphore(t, c, path, 1).Acquire(ctx)
	require.NoError(t, err)
	_, err = newSemaphore(t, connect(t, zktest.Servers(t)), path, 1).AcquireTimeout(ctx, heldTimeout)
	require.ErrorIs(t, err, semaphore.ErrNotAcquired)
	assert.NotErrorIs(t, err, context.DeadlineExceeded)

	proxy := zktest.NewProxy(t, zktest.Servers(t))
	cut := connect(t, proxy.Addr(), framework.WithConnectionTimeout(200*time.Millisecond))
	s := newSemaphore(t, cut, path, 1)
	proxy.Close()
	require.Eventually(t, func() bool { return !cut.IsConnected() }, 10*time.Second, 5*time.Millisecond)
	_, err = s.AcquireTimeout(ctx, 500*time.Millisecond)
	require.ErrorIs(t, err, semaphore.ErrUnreachable)
	assert.NotErrorIs(t, err, semaphore.ErrNotAcquired)
	require.NoError(t, held.Release(ctx))
}

// cancelOnMissingDirectory cancels a context when a transaction fails for
// want of its directory: the moment an acquire's ctx may end, between
// the server's answer and the acquire's next step.
type cancelOnMissingDirectory struct {
	framework.NoopObserver
	cancel atomic.Pointer[context.CancelFunc]
}

func (o *cancelOnMissingDirectory) OnRequest(e framework.RequestEvent) {
	if cancel := o.cancel.Load(); cancel != nil && e.Op == "multi" && errors.Is(e.Err, zk.ErrNoNode) {
		(*cancel)()
	}
}

// An acquire whose lease transaction finds the leases directory gone
// (a container the server reaped while the semaphore was idle) and whose
// ctx ends before it makes the directory again says that its ctx ended,
// and so a timed one says that its time ran out: never the bare "node
// does not exist" of a step the caller cannot see.
func TestSemaphore_ACtxEndingAsTheLeasesDirectoryIsMissingSaysSo(t *testing.T) {
	obs := &cancelOnMissingDirectory{}
	c := connect(t, zktest.Servers(t), framework.WithObserver(obs))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 2)
	warm, err := s.Acquire(ctx) // makes the directories
	require.NoError(t, err)
	require.NoError(t, s.Release(ctx, warm))
	require.NoError(t, c.Delete(ctx, path+"/leases", -1)) // as the server reaps an empty container

	acquireCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	obs.cancel.Store(&cancel)
	_, err = s.Acquire(acquireCtx)
	require.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, zk.ErrNoNode, "the missing directory is the acquire's business, not the caller's")
	require.Eventually(t, func() bool { return nodeCount(t, c, path) == 0 }, 10*time.Second, 5*time.Millisecond,
		"the acquire left nodes behind")
}

// vanishThenCancel deletes an acquirer's lease node as soon as its create
// is answered, and cancels the acquire's context once the acquirer has
// listed the leases and so seen its node gone.
type vanishThenCancel struct {
	framework.NoopObserver
	other  *framework.Client
	leases string
	keep   string // the holder's lease node
	cancel atomic.Pointer[context.CancelFunc]
}

func (o *vanishThenCancel) OnRequest(e framework.RequestEvent) {
	cancel := o.cancel.Load()
	switch {
	case cancel == nil || e.Err != nil:
	case e.Op == "multi":
		ctx, done := context.WithTimeout(context.Background(), 10*time.Second)
		defer done()
		children, _, _ := o.other.Children(ctx, o.leases)
		for _, name := range children {
			if name != o.keep {
				_ = o.other.Delete(ctx, o.leases+"/"+name, -1)
			}
		}
	case e.Op == "children" && e.Path == o.leases:
		(*cancel)()
	}
}

// An acquire whose lease node vanished while it waited for room would
// create one again; if its ctx ended meanwhile, it says both: that its
// node went missing, and that its ctx ended (by which a timed acquire
// tells that its time ran out).
func TestSemaphore_ACtxEndingAsTheLeaseNodeVanishesSaysSo(t *testing.T) {
	path := zktest.UniquePath(t)
	other := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	held, err := newSemaphore(t, other, path, 1).Acquire(ctx)
	require.NoError(t, err)
	obs := &vanishThenCancel{other: other, leases: path + "/leases", keep: zkpath.Base(held.Node())}
	c := connect(t, zktest.Servers(t), framework.WithObserver(obs))
	s := newSemaphore(t, c, path, 1)

	acquireCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	obs.cancel.Store(&cancel)
	_, err = s.Acquire(acquireCtx)
	require.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, err, semaphore.ErrNodeMissing)
	assert.Equal(t, []string{obs.keep}, children(t, other, obs.leases), "the acquire left a lease node")
}
