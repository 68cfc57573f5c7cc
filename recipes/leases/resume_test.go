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
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
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

	taken, err := ttlSemaphore(t, second, path).Resume(ctx, zkpath.Base(old.Node()))
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
	require.NoError(t, taken.Release(ctx))
}

// Resumes of one lease that read it at once race for it: exactly one takes
// it over, the others fail with ErrTakenOver (an ErrLost) instead of
// taking it from the winner; round after round, one lease lives. The
// replies are released once the server has answered every read, not once
// the proxies have seen them: a read still on its way (here one link is
// slow, as a loaded machine makes one) would be served after the winner's
// write and take the lease over from the winner, as a later Resume does.
func TestResume_ConcurrentResumesLeaveOneLiveLease(t *testing.T) {
	servers := zktest.Servers(t)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	live, err := ttlSemaphore(t, connect(t, servers), path).Acquire(ctx)
	require.NoError(t, err)
	name := zkpath.Base(live.Node())
	const n = 4
	for round := range 3 {
		proxies := make([]*zktest.Proxy, n)
		sems := make([]*semaphore.Semaphore, n)
		for i := range n {
			proxies[i] = zktest.NewProxy(t, servers)
			sems[i] = ttlSemaphore(t, connect(t, proxies[i].Addr(), framework.WithSessionTimeout(20*time.Second)), path)
			proxies[i].HoldReplies() // every Resume reads the same version
		}
		proxies[round%n].SetDelay(200 * time.Millisecond)
		results := make(chan error, n)
		resumed := make(chan *leases.Lease, n)
		for _, s := range sems {
			go func() { // ends when the Resume returns
				l, err := s.Resume(ctx, name)
				if err == nil {
					resumed <- l
				}
				results <- err
			}()
		}
		for _, p := range proxies {
			require.Eventually(t, func() bool { return p.Answered(zktest.OpGetData) >= 1 },
				10*time.Second, 5*time.Millisecond, "round %d: the Resume's read", round)
		}
		for _, p := range proxies {
			p.ReleaseReplies()
		}
		var errs []error
		for range n {
			if err := <-results; err != nil {
				errs = append(errs, err)
			}
		}
		require.Len(t, resumed, 1, "round %d: one Resume takes the lease", round)
		for _, err := range errs {
			require.ErrorIs(t, err, leases.ErrTakenOver, "round %d", round)
			require.ErrorIs(t, err, leases.ErrLost, "round %d", round)
		}
		waitClosed(t, live.Lost(), 10*time.Second, "the earlier holder's loss")
		live = <-resumed
		require.NoError(t, live.Err(), "round %d", round)
	}
	require.NoError(t, live.Renew(ctx))
	require.NoError(t, live.Release(ctx))
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
		l, err := ttlSemaphore(t, c, path).Resume(ctx, zkpath.Base(old.Node()))
		got <- outcome{l, err}
	}()
	require.Eventually(t, func() bool {
		_, stat, err := observer.Get(ctx, old.Node())
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
	_, stat, err := observer.Get(ctx, old.Node())
	require.NoError(t, err)
	token, err := r.l.FencingToken(ctx)
	require.NoError(t, err)
	assert.Equal(t, stat.Mzxid, token, "the token is the take-over's zxid")
	waitClosed(t, old.Lost(), 10*time.Second, "the earlier holder's loss")
	require.NoError(t, r.l.Renew(context.WithoutCancel(ctx)))
	require.NoError(t, r.l.Release(ctx))
}

// A Resume whose write meets a renewal by the holder it takes the lease
// over from (the renewal landed between the Resume's read and its write)
// tries again and takes the lease: that holder is no other Resume. The
// two share a connection, so the server sees the read, then the renewal.
func TestResume_TriesAgainWhenItsHolderRenewedMeanwhile(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	old, err := ttlSemaphore(t, c, path).Acquire(ctx)
	require.NoError(t, err)
	require.NoError(t, old.Renew(ctx), "the node names its holder")
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpGetData) == 2 },
		10*time.Second, 5*time.Millisecond, "the holder's watch is set again after its renewal")

	proxy.HoldReplies()
	type outcome struct {
		l   *leases.Lease
		err error
	}
	got := make(chan outcome, 1)
	go func() { // ends when the Resume returns
		l, err := ttlSemaphore(t, c, path).Resume(ctx, zkpath.Base(old.Node()))
		got <- outcome{l, err}
	}()
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpGetData) == 3 },
		10*time.Second, 5*time.Millisecond, "the Resume's read")
	renewed := make(chan error, 1)
	go func() { renewed <- old.Renew(ctx) }() // ends when the renewal returns
	require.Eventually(t, func() bool { return proxy.Requests(opSetData) == 2 },
		10*time.Second, 5*time.Millisecond, "the holder's renewal")
	proxy.ReleaseReplies()

	require.NoError(t, <-renewed)
	r := <-got
	require.NoError(t, r.err)
	assert.Equal(t, int64(4), proxy.Requests(opSetData), "the Resume's first write was refused, its second applied")
	waitClosed(t, old.Lost(), 10*time.Second, "the earlier holder's loss")
	require.ErrorIs(t, old.Err(), leases.ErrTakenOver)
	require.NoError(t, r.l.Release(ctx))
}

// A TTL lease that another holder took over and released before this
// holder heard of it was lost, and its Release says so: the node is gone
// because the lease was someone else's, not because this holder gave it
// back. The holder hears nothing meanwhile (its replies are held), so its
// Release finds the node gone with no loss seen.
func TestRelease_TakenOverAndReleasedBeforeTheHolderHeardIsLost(t *testing.T) {
	const opDelete int32 = 2
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(20*time.Second))
	other := connect(t, servers)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	old, err := ttlSemaphore(t, c, path).Acquire(ctx)
	require.NoError(t, err)

	proxy.HoldReplies()
	deletes := proxy.Requests(opDelete) // the guard's, in the acquire
	taken, err := ttlSemaphore(t, other, path).Resume(ctx, zkpath.Base(old.Node()))
	require.NoError(t, err)
	require.NoError(t, taken.Release(ctx))
	released := make(chan error, 1)
	go func() { released <- old.Release(ctx) }() // ends when the release returns
	require.Eventually(t, func() bool { return proxy.Requests(opDelete) == deletes+1 },
		10*time.Second, 5*time.Millisecond, "the holder's delete reached the server")
	proxy.ReleaseReplies()

	select {
	case err = <-released:
	case <-time.After(30 * time.Second):
		t.Fatal("the release did not return")
	}
	assert.ErrorIs(t, err, leases.ErrLost, "the lease was taken over before its release")
}
