package leases_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// opSetData is the request type of a write of a node's data.
const opSetData int32 = 5

// fencedResource keeps the highest fencing token it has seen and refuses
// writes with a lower one, as a fenced store does.
type fencedResource struct {
	mu      sync.Mutex
	highest int64
}

var errStaleToken = errors.New("stale fencing token")

func (r *fencedResource) write(token int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if token < r.highest {
		return errStaleToken
	}
	r.highest = token
	return nil
}

// ttlSemaphore returns a semaphore of one TTL lease at path.
func ttlSemaphore(t testing.TB, c *framework.Client, path string) *semaphore.Semaphore {
	t.Helper()
	s, err := semaphore.New(c, path, 1, semaphore.WithTTL(time.Minute))
	require.NoError(t, err)
	return s
}

// A Resume gives the lease a new, higher fencing token, while renewals
// keep a holder's token; the earlier holder learns of the take-over at
// once, not at its next renewal, and a resource that keeps the highest
// token refuses it.
func TestResume_TakeOverGivesAHigherTokenAndTheEarlierHolderLosesAtOnce(t *testing.T) {
	servers := zktest.Servers(t)
	first, second := connect(t, servers), connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	old, err := ttlSemaphore(t, first, path).Acquire(ctx)
	require.NoError(t, err)
	lost := old.Lost()
	oldToken, err := old.FencingToken(ctx)
	require.NoError(t, err)
	var resource fencedResource
	require.NoError(t, resource.write(oldToken))
	require.NoError(t, old.Renew(ctx))
	token, err := old.FencingToken(ctx)
	require.NoError(t, err)
	assert.Equal(t, oldToken, token, "a renewal keeps the holder's token")

	taken, err := ttlSemaphore(t, second, path).Resume(ctx, old.Name())
	require.NoError(t, err)
	newToken, err := taken.FencingToken(ctx)
	require.NoError(t, err)
	assert.Greater(t, newToken, oldToken, "the take-over has a higher token")
	require.NoError(t, resource.write(newToken))

	waitClosed(t, lost, 10*time.Second, "the earlier holder's loss")
	require.ErrorIs(t, old.Err(), leases.ErrLost)
	require.ErrorIs(t, old.Err(), leases.ErrTakenOver)
	require.ErrorIs(t, resource.write(oldToken), errStaleToken, "the earlier holder is refused")

	require.NoError(t, taken.Renew(ctx))
	token, err = taken.FencingToken(ctx)
	require.NoError(t, err)
	assert.Equal(t, newToken, token, "a renewal keeps the new holder's token")
	require.NoError(t, taken.Err())
	require.NoError(t, taken.Return(ctx))
}

// A Resume whose write the server applied but whose answer was lost
// recognises its own write when the retried write fails: it holds the
// lease, with the token of its write.
func TestResume_LostAnswerToItsWriteStillTakesTheLease(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
	observer := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	old, err := ttlSemaphore(t, observer, path).Acquire(ctx)
	require.NoError(t, err)

	proxy.HoldRepliesFrom(opSetData)
	type outcome struct {
		l   *leases.Lease
		err error
	}
	got := make(chan outcome, 1)
	go func() { // ends when the Resume returns
		l, err := ttlSemaphore(t, c, path).Resume(ctx, old.Name())
		got <- outcome{l, err}
	}()
	require.Eventually(t, func() bool {
		_, stat, err := observer.Get(ctx, old.Path())
		return assert.NoError(t, err) && stat.Version == 1
	}, 10*time.Second, 5*time.Millisecond, "the Resume's write was applied")
	proxy.Cut() // the answer is lost with its connection
	proxy.ReleaseReplies()

	var r outcome
	select {
	case r = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("the Resume did not return")
	}
	require.NoError(t, r.err, "the Resume's own write is no other holder's")
	require.NoError(t, r.l.Err())
	_, stat, err := observer.Get(ctx, old.Path())
	require.NoError(t, err)
	token, err := r.l.FencingToken(ctx)
	require.NoError(t, err)
	assert.Equal(t, stat.Mzxid, token, "the token is the take-over's zxid")
	waitClosed(t, old.Lost(), 10*time.Second, "the earlier holder's loss")
	require.NoError(t, r.l.Renew(context.WithoutCancel(ctx)))
	require.NoError(t, r.l.Return(ctx))
}
