package atomicvalue_test

import (
	"context"
	"path"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// beaten runs update, whose client c goes through proxy, while another
// write of the node at path goes between the update's first read and its
// first write. The proxy holds the answer to the read until that write,
// sent on the same session, is on its way: the server applies a session's
// requests in order, so the write lands after the read and before the
// update's own write.
func beaten[R any](t *testing.T, proxy *zktest.Proxy, c *framework.Client, path string, value int64, update func() (R, error)) (R, error) {
	t.Helper()
	ctx := testContext(t)
	reads, sets := proxy.Requests(zktest.OpGetData), proxy.Requests(zktest.OpSetData)
	proxy.HoldRepliesFrom(zktest.OpGetData)
	type answer struct {
		r   R
		err error
	}
	done := make(chan answer, 1)
	go func() { // ends when the update returns
		r, err := update()
		done <- answer{r, err}
	}()
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpGetData) > reads }, 10*time.Second, time.Millisecond)
	wrote := make(chan error, 1)
	go func() { // ends with the other write's answer
		_, err := c.Set(ctx, path, longBytes(value), -1)
		wrote <- err
	}()
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpSetData) > sets }, 10*time.Second, time.Millisecond)
	proxy.ReleaseReplies()
	require.NoError(t, <-wrote)
	a := <-done
	return a.r, a.err
}

// longBytes is v as a Long's node holds it.
func longBytes(v int64) []byte {
	b := make([]byte, 8)
	for i := 7; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
	return b
}

// setup returns a client through a proxy and a Long on it at 10.
func setup(t *testing.T, opts ...atomicvalue.Option) (*zktest.Proxy, *framework.Client, *atomicvalue.Long) {
	t.Helper()
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	l := newLong(t, c, zktest.UniquePath(t)+"/n", opts...)
	require.NoError(t, l.ForceSet(testContext(t), 10))
	return proxy, c, l
}

func TestLong_IncrementBeatenWithNoRetryDoesNotSucceedAndWritesNothing(t *testing.T) {
	proxy, c, l := setup(t, atomicvalue.WithRetryPolicy(framework.NoRetry()))
	ctx := testContext(t)

	r, err := beaten(t, proxy, c, l.Path(), 100, func() (atomicvalue.Result[int64], error) { return l.Increment(ctx) })
	require.NoError(t, err, "beaten is no error")
	assert.False(t, r.Succeeded)
	assert.Equal(t, int64(10), r.PreValue, "the value it read")
	assert.Equal(t, 1, r.Stats.OptimisticTries)
	got, err := l.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(100), got.PreValue, "the other write stands, and nothing else")
}

func TestLong_IncrementBeatenOnceReadsAndTriesAgain(t *testing.T) {
	proxy, c, l := setup(t)
	ctx := testContext(t)

	r, err := beaten(t, proxy, c, l.Path(), 100, func() (atomicvalue.Result[int64], error) { return l.Increment(ctx) })
	require.NoError(t, err)
	assert.True(t, r.Succeeded)
	assert.Equal(t, int64(100), r.PreValue)
	assert.Equal(t, int64(101), r.PostValue)
	assert.Equal(t, 2, r.Stats.OptimisticTries)
	assert.Zero(t, r.Stats.PromotedTries)
}

func TestLong_IncrementBeatenOptimisticallyIsMadeUnderTheLock(t *testing.T) {
	lockPath := zktest.UniquePath(t) + "/lock"
	proxy, c, l := setup(t, atomicvalue.WithRetryPolicy(framework.NoRetry()),
		atomicvalue.WithPromotedToLock(atomicvalue.PromotedToLock{Path: lockPath}))
	ctx := testContext(t)

	r, err := beaten(t, proxy, c, l.Path(), 100, func() (atomicvalue.Result[int64], error) { return l.Increment(ctx) })
	require.NoError(t, err)
	assert.True(t, r.Succeeded)
	assert.Equal(t, int64(100), r.PreValue)
	assert.Equal(t, int64(101), r.PostValue)
	assert.Equal(t, 1, r.Stats.OptimisticTries)
	assert.Equal(t, 1, r.Stats.PromotedTries)
	assert.Positive(t, r.Stats.PromotedTime)
	assert.Empty(t, zktest.Children(t, c, lockPath), "the lock was released")
}

func TestLong_PromotedUpdateWhoseLockStaysHeldPastItsTimeoutDoesNotSucceed(t *testing.T) {
	lockPath := zktest.UniquePath(t) + "/lock"
	proxy, c, l := setup(t, atomicvalue.WithRetryPolicy(framework.NoRetry()),
		atomicvalue.WithPromotedToLock(atomicvalue.PromotedToLock{Path: lockPath, Timeout: 300 * time.Millisecond}))
	ctx := testContext(t)
	other, err := mutex.New(connect(t, zktest.Servers(t)), lockPath)
	require.NoError(t, err)
	hold, err := other.Acquire(ctx)
	require.NoError(t, err)

	r, err := beaten(t, proxy, c, l.Path(), 100, func() (atomicvalue.Result[int64], error) { return l.Increment(ctx) })
	require.NoError(t, err, "a lock held by others is no error")
	assert.False(t, r.Succeeded)
	assert.Equal(t, 1, r.Stats.OptimisticTries)
	assert.Zero(t, r.Stats.PromotedTries)
	assert.GreaterOrEqual(t, r.Stats.PromotedTime, 300*time.Millisecond)
	assert.Equal(t, []string{path.Base(hold.Node())}, zktest.Children(t, c, lockPath), "the waiter left nothing")
	require.NoError(t, hold.Release(ctx))
	got, err := l.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(100), got.PreValue)
}

// A promoted update without a lock timeout waits for the lock as long as
// its ctx allows: when ctx ends it fails with ctx's error, has written
// nothing, and leaves no lock node.
func TestLong_PromotedUpdateWhoseCtxEndsWaitingForTheLockFailsAndLeavesNothing(t *testing.T) {
	lockPath := zktest.UniquePath(t) + "/lock"
	proxy, c, l := setup(t, atomicvalue.WithRetryPolicy(framework.NoRetry()),
		atomicvalue.WithPromotedToLock(atomicvalue.PromotedToLock{Path: lockPath}))
	ctx := testContext(t)
	other, err := mutex.New(connect(t, zktest.Servers(t)), lockPath)
	require.NoError(t, err)
	hold, err := other.Acquire(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = hold.Release(context.Background()) })
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()

	_, err = beaten(t, proxy, c, l.Path(), 100, func() (atomicvalue.Result[int64], error) { return l.Increment(short) })
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, []string{path.Base(hold.Node())}, zktest.Children(t, c, lockPath), "the waiter left nothing")
	got, err := l.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(100), got.PreValue, "only the other write")
}

// A promoted update waiting for the lock when its client is closed fails
// with ErrClosed, not as if its session had been lost.
func TestLong_PromotedUpdateWaitingForTheLockWhenItsClientClosesFailsWithErrClosed(t *testing.T) {
	lockPath := zktest.UniquePath(t) + "/lock"
	proxy, c, l := setup(t, atomicvalue.WithRetryPolicy(framework.NoRetry()),
		atomicvalue.WithPromotedToLock(atomicvalue.PromotedToLock{Path: lockPath}))
	ctx := testContext(t)
	observer := connect(t, zktest.Servers(t))
	other, err := mutex.New(observer, lockPath)
	require.NoError(t, err)
	hold, err := other.Acquire(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = hold.Release(context.Background()) })
	// The update waits on a watch: of the lock's directory (addWatch, 3.6+)
	// or of the node before its own (exists, opcode 3).
	watches := func() int64 { return proxy.Answered(zktest.OpAddWatch) + proxy.Answered(3) }
	before := watches()
	go func() { // ends once the update waits for the lock and its client is closed, or with the test
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			if watches() > before {
				_ = c.Close()
				return
			}
			select {
			case <-tick.C:
			case <-ctx.Done():
				return
			}
		}
	}()

	_, err = beaten(t, proxy, c, l.Path(), 100, func() (atomicvalue.Result[int64], error) { return l.Increment(ctx) })
	require.ErrorIs(t, err, atomicvalue.ErrClosed)
	assert.Eventually(t, func() bool { return len(zktest.Children(t, observer, lockPath)) == 1 }, 10*time.Second, 10*time.Millisecond,
		"the waiter's node went with its session")
}

// Increments racing from several clients each count once: the value ends
// at the number that succeeded.
func TestLong_ConcurrentIncrementsFromSeveralClientsEachCountOnce(t *testing.T) {
	const clients, increments = 4, 20
	servers := zktest.Servers(t)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	succeeded := incrementFromClients(ctx, t, servers, path, clients, increments)
	got, err := newLong(t, connect(t, servers), path).Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(succeeded), got.PreValue)
	assert.Positive(t, succeeded)
	t.Logf("%d of %d increments succeeded", succeeded, clients*increments)
}

// With a lock whose tries go on until one succeeds, every increment of
// every client succeeds, however many lose their optimistic try.
func TestLong_PromotionLetsEveryContendedIncrementSucceed(t *testing.T) {
	const clients, increments = 4, 15
	servers := zktest.Servers(t)
	ctx := testContext(t)
	base := zktest.UniquePath(t)
	opts := []atomicvalue.Option{
		atomicvalue.WithRetryPolicy(framework.NoRetry()),
		atomicvalue.WithPromotedToLock(atomicvalue.PromotedToLock{Path: base + "/lock", RetryPolicy: framework.RetryForever(0)}),
	}
	succeeded := incrementFromClients(ctx, t, servers, base+"/n", clients, increments, opts...)
	assert.Equal(t, clients*increments, succeeded)
	got, err := newLong(t, connect(t, servers), base+"/n").Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(clients*increments), got.PreValue)
}

// incrementFromClients increments the Long at path increments times from
// each of clients clients at once, and returns how many succeeded.
func incrementFromClients(ctx context.Context, t *testing.T, servers, path string, clients, increments int, opts ...atomicvalue.Option) int {
	t.Helper()
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		succeeded int
	)
	for range clients {
		l := newLong(t, connect(t, servers), path, opts...)
		wg.Add(1)
		go func() { // ends after its increments
			defer wg.Done()
			for range increments {
				r, err := l.Increment(ctx)
				if !assert.NoError(t, err) {
					return
				}
				if r.Succeeded {
					mu.Lock()
					succeeded++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return succeeded
}
