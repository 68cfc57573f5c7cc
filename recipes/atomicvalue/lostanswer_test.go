package atomicvalue_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
)

// requireAppliedOnce checks the answer of an update that the server
// applied but whose answer was lost: reported succeeded, or of unknown
// outcome, never as not succeeded; and the value moved once.
func requireAppliedOnce(t *testing.T, l *atomicvalue.Long, r atomicvalue.Result[int64], err error, want int64) {
	t.Helper()
	if err != nil {
		require.ErrorIs(t, err, atomicvalue.ErrOutcomeUnknown)
	} else {
		require.True(t, r.Succeeded, "an applied write reported as not applied")
	}
	got, err := l.Get(testContext(t))
	require.NoError(t, err)
	assert.Equal(t, want, got.PreValue, "applied once")
}

func TestLong_IncrementWhoseWriteAnswerIsLostIsAppliedOnceAndNeverReportedFailed(t *testing.T) {
	proxy, _, l := setup(t)
	ctx := testContext(t)

	proxy.DropNextReply(zktest.OpSetData)
	r, err := l.Increment(ctx)
	require.Equal(t, 1, proxy.DroppedRepliesOf(zktest.OpSetData), "the answer was lost")
	requireAppliedOnce(t, l, r, err, 11)
}

// The first increment creates the node; a create sent again after a lost
// answer would meet its own node and count once more.
func TestLong_IncrementWhoseCreateAnswerIsLostIsAppliedOnceAndNeverReportedFailed(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, dir)) // so that the first create is the one
	l := newLong(t, c, dir+"/n")

	proxy.DropNextCreateReply()
	r, err := l.Increment(ctx)
	require.Equal(t, 1, proxy.DroppedReplies(), "the answer was lost")
	requireAppliedOnce(t, l, r, err, 1)
}

func TestLong_InitializeWhoseAnswerIsLostIsNotReportedFalse(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr())
	ctx := testContext(t)
	dir := zktest.UniquePath(t)
	require.NoError(t, c.EnsurePath(ctx, dir))
	l := newLong(t, c, dir+"/n")

	proxy.DropNextCreateReply()
	ok, err := l.Initialize(ctx, 5)
	require.Equal(t, 1, proxy.DroppedReplies(), "the answer was lost")
	if err != nil {
		require.ErrorIs(t, err, atomicvalue.ErrOutcomeUnknown)
	} else {
		require.True(t, ok, "the node this call created reported as someone else's")
	}
}

func TestLong_CompareAndSetWhoseAnswerIsLostIsNeverReportedFailed(t *testing.T) {
	proxy, _, l := setup(t)
	ctx := testContext(t)

	proxy.DropNextReply(zktest.OpSetData)
	r, err := l.CompareAndSet(ctx, 10, 20)
	require.Equal(t, 1, proxy.DroppedRepliesOf(zktest.OpSetData))
	requireAppliedOnce(t, l, r, err, 20)
}

// An update whose ctx ends after its write was sent, before the answer,
// says so: the write may still apply, as it does here.
func TestLong_IncrementWhoseContextEndsBeforeItsWriteIsAnsweredIsOfUnknownOutcome(t *testing.T) {
	proxy, _, l := setup(t)
	ctx, cancel := context.WithTimeout(testContext(t), time.Second)
	defer cancel()

	proxy.HoldRepliesFrom(zktest.OpSetData)
	_, err := l.Increment(ctx)
	require.ErrorIs(t, err, atomicvalue.ErrOutcomeUnknown)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	proxy.ReleaseReplies()
	got, err := l.Get(testContext(t))
	require.NoError(t, err)
	assert.Equal(t, int64(11), got.PreValue)
}

// A server that does not answer from the start fails the update with the
// end of its ctx, and nothing is written.
func TestLong_IncrementWithTheServerUnreachableFailsAndWritesNothing(t *testing.T) {
	proxy, _, l := setup(t)
	ctx, cancel := context.WithTimeout(testContext(t), 500*time.Millisecond)
	defer cancel()
	sets := proxy.Requests(zktest.OpSetData)

	proxy.Pause()
	_, err := l.Increment(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.NotErrorIs(t, err, atomicvalue.ErrOutcomeUnknown, "no write was sent")
	proxy.Resume()
	assert.Equal(t, sets, proxy.Requests(zktest.OpSetData))
	got, err := l.Get(testContext(t))
	require.NoError(t, err)
	assert.Equal(t, int64(10), got.PreValue)
}

// Increments from several clients, every third of whose writes loses its
// answer, count each increment at most once: the value ends between the
// number reported succeeded and that plus the number of unknown outcome.
func TestLong_IncrementsUnderLostAnswersFromSeveralClientsCountAtMostOnce(t *testing.T) {
	const clients, increments = 3, 12
	servers := zktest.Servers(t)
	ctx := testContext(t)
	path := zktest.UniquePath(t)

	var (
		wg                 sync.WaitGroup
		mu                 sync.Mutex
		succeeded, unknown int
	)
	for range clients {
		proxy := zktest.NewProxy(t, servers)
		l := newLong(t, connect(t, proxy.Addr()), path)
		wg.Add(1)
		go func() { // ends after its increments
			defer wg.Done()
			for i := range increments {
				if i%3 == 1 {
					proxy.DropNextReply(zktest.OpSetData)
				}
				r, err := l.Increment(ctx)
				mu.Lock()
				switch {
				case errors.Is(err, atomicvalue.ErrOutcomeUnknown):
					unknown++
				case !assert.NoError(t, err):
				case r.Succeeded:
					succeeded++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	got, err := newLong(t, connect(t, servers), path).Get(ctx)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, got.PreValue, int64(succeeded), "a succeeded increment was lost")
	assert.LessOrEqual(t, got.PreValue, int64(succeeded+unknown), "an increment was applied twice")
	t.Logf("succeeded %d, unknown %d, value %d", succeeded, unknown, got.PreValue)
}
