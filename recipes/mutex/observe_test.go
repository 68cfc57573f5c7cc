package mutex_test

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// The client's observer sees a mutex's acquire granted and its hold
// released; then, under a fault, the hold lost with its cause, the
// connection suspended and back, a create retried after its answer was
// lost, and the requests by type.
func TestMutex_ObserverSeesAcquiresHoldsAndFaults(t *testing.T) {
	rec := &zktest.Recorder{}
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second), framework.WithObserver(rec))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	m := newMutex(t, c, path)

	h, err := m.Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Release(ctx))
	acquires := rec.Acquires()
	require.Len(t, acquires, 2)
	assert.Equal(t, framework.AcquireStarted, acquires[0].Phase)
	assert.Equal(t, framework.AcquireGranted, acquires[1].Phase)
	assert.Equal(t, "mutex", acquires[1].Recipe)
	assert.Equal(t, path, acquires[1].Path)
	assert.Positive(t, acquires[1].Wait)
	holds := rec.Holds()
	require.Len(t, holds, 1)
	assert.Equal(t, framework.CauseReleased, holds[0].Cause)
	assert.Equal(t, path, holds[0].Path)
	assert.Positive(t, holds[0].Held)

	// A hold lost to a cut connection, under the standard error policy.
	h, err = m.Acquire(ctx)
	require.NoError(t, err)
	proxy.Cut()
	waitClosed(t, h.Lost(), 10*time.Second, "the hold's loss channel")
	require.Eventually(t, func() bool { return len(rec.Holds()) == 2 }, 10*time.Second, 10*time.Millisecond)
	lost := rec.Holds()[1]
	assert.Equal(t, framework.CauseSuspended, lost.Cause)
	assert.True(t, lost.Cause.IsLoss())
	assert.ErrorIs(t, lost.Err, mutex.ErrLost)
	require.Eventually(t, func() bool { return rec.HasState(framework.Reconnected) }, 10*time.Second, 10*time.Millisecond)
	assert.True(t, rec.HasState(framework.Suspended))
	assert.ErrorIs(t, h.Release(ctx), mutex.ErrLost)
	for _, ev := range rec.States() {
		if ev.Change.State == framework.Reconnected {
			assert.True(t, ev.Leased, "the reconnected session keeps a lease")
			assert.Positive(t, ev.LeaseMargin)
			assert.Same(t, c, ev.Client)
		}
	}

	// A create whose answer is lost is retried.
	proxy.DropNextCreateReply()
	h, err = m.Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, h.Release(ctx))
	// Other calls may have retried too since the cut (the lost hold's
	// clean-up): the create's retry is the one to look at.
	var created *framework.RetryEvent
	for _, r := range rec.Retries() {
		if r.Op == "create" {
			created = &r
			break
		}
	}
	require.NotNil(t, created, "the create was retried: %v", rec.Retries())
	assert.Equal(t, 1, created.Attempt)
	assert.ErrorIs(t, created.Err, zk.ErrConnectionClosed)

	ops := rec.RequestOps()
	assert.Positive(t, ops["create"], "%v", ops)
	assert.Positive(t, ops["delete"], "%v", ops)
	assert.GreaterOrEqual(t, ops["create"], 4, "three acquires, one retried: %v", ops)
}

// A lock whose acquire runs out while others hold it is reported failed,
// as not acquired.
func TestMutex_ObserverSeesATimedOutAcquireAsNotAcquired(t *testing.T) {
	rec := &zktest.Recorder{}
	servers := zktest.Servers(t)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	holder, err := newMutex(t, connect(t, servers), path).Acquire(ctx)
	require.NoError(t, err)
	defer holder.Release(ctx)

	_, err = newMutex(t, connect(t, servers, framework.WithObserver(rec)), path).AcquireTimeout(ctx, heldTimeout)
	require.ErrorIs(t, err, mutex.ErrNotAcquired)
	acquires := rec.Acquires()
	require.Len(t, acquires, 2)
	assert.Equal(t, framework.AcquireFailed, acquires[1].Phase)
	assert.ErrorIs(t, acquires[1].Err, mutex.ErrNotAcquired)
	assert.GreaterOrEqual(t, acquires[1].Wait, 200*time.Millisecond)
	assert.Empty(t, rec.Holds())
}
