package leader_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// checkGrant fails the test unless lead, just returned by Await on a latch
// of c, is a term of c's current session whose node stands on the server,
// created by that session.
func checkGrant(t testing.TB, c *framework.Client, lead *leader.Leadership) bool {
	t.Helper()
	ok, stat, err := c.Exists(testContext(t), lead.Node())
	return assert.NoError(t, err) &&
		assert.True(t, ok, "the granted term's node %s stands", lead.Node()) &&
		assert.Same(t, c.Session(), lead.Session(), "the term is of the current session") &&
		assert.Equal(t, c.Session().ID(), stat.EphemeralOwner, "the node is the current session's")
}

// A waiter whose session expires while its predecessor leaves must not be
// granted leadership with its old node, which stood first on the server
// until the session's expiry removed it: it joins again in its new
// session, and Await returns a term of that one.
func TestLatch_AwaitNeverGrantsANodeOfAnExpiredSession(t *testing.T) {
	t.Parallel()
	servers := zktest.Servers(t)
	observer := connect(t, servers)
	p := zktest.UniquePath(t)
	a := startLatch(t, connect(t, servers), p, leader.WithID("a"))
	await(t, a, 10*time.Second, "a")
	proxy := zktest.NewProxy(t, servers)
	proxy.MakeOld() // waits on one-shot watches, whose requests tell when b waits
	bc := connect(t, proxy.Addr(), framework.WithSessionTimeout(shortSession))
	b := startLatch(t, bc, p, leader.WithID("b"))
	require.Eventually(t, func() bool { return proxy.Requests(zktest.OpGetData) == 2 }, 10*time.Second, 2*time.Millisecond, "b waits")
	old := bc.Session()
	granted := make(chan *leader.Leadership, 1)
	go func() {
		lead, err := b.Await(testContext(t))
		if assert.NoError(t, err) {
			granted <- lead
		}
	}()

	proxy.Pause()
	require.NoError(t, a.Close(testContext(t)))
	assert.Equal(t, []string{"b"}, queueIDs(t, observer, p), "b's old node is first on the server")
	waitClosed(t, old.Lost(), 30*time.Second, "b's old session")
	select {
	case lead := <-granted:
		t.Fatalf("granted %s while partitioned", lead.Node())
	default:
	}
	proxy.Resume()
	select {
	case lead := <-granted:
		checkGrant(t, bc, lead)
		assert.NotSame(t, old, lead.Session())
	case <-time.After(30 * time.Second):
		t.Fatal("b never led in its new session")
	}
}

// A waiter whose connection is cut again and again, sometimes while the
// leader resigns, is never granted a term while the other leads, nor one
// whose node is gone or of another session: Await never lies. Both
// latches are watched all along for an instant at which both lead.
func TestLatch_AwaitNeverLiesThroughReconnects(t *testing.T) {
	t.Parallel()
	iterations := 1000
	if testing.Short() {
		iterations = 40
	}
	servers := zktest.Servers(t)
	p := zktest.UniquePath(t)
	var (
		clients     []*framework.Client
		proxies     []*zktest.Proxy
		reconnected []chan struct{}
		latches     []*leader.Latch
	)
	for _, id := range []string{"x", "y"} {
		proxy := zktest.NewProxy(t, servers)
		// Short retry waits: a cut often catches a request in flight, and
		// the default policy's first wait is up to 400 ms.
		c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second),
			framework.WithRetryPolicy(framework.ExponentialBackoff(5*time.Millisecond, 50*time.Millisecond, 20)))
		clients, proxies = append(clients, c), append(proxies, proxy)
		ch := make(chan struct{}, 1000)
		reconnected = append(reconnected, ch)
		c.AddListener(func(s framework.StateChange) {
			if s.State == framework.Reconnected {
				ch <- struct{}{}
			}
		})
		latches = append(latches, startLatch(t, c, p, leader.WithID(id)))
		if id == "x" {
			await(t, latches[0], 10*time.Second, "x")
		}
	}
	var overlaps atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// Ends when stop is closed.
	wg.Go(func() {
		for k := 0; ; k++ {
			select {
			case <-stop:
				return
			default:
			}
			// One term seen before and after the other's: both stood
			// while the other was read.
			a, b := latches[k%2], latches[1-k%2]
			runtime.Gosched()
			if ta := leading(a); ta != nil && leading(b) != nil && leading(a) == ta {
				overlaps.Add(1)
			}
		}
	})
	ctx := testContext(t)
	leaderAt, grants := 0, 0

	observer := connect(t, servers)
	for i := range iterations {
		waiter := 1 - leaderAt
		// A resigned leader queues again in the background: wait for it.
		require.Eventually(t, func() bool { return len(children(t, observer, p)) == 2 }, 10*time.Second, time.Millisecond, "both queued")
		for len(reconnected[waiter]) > 0 {
			<-reconnected[waiter]
		}
		proxies[waiter].Cut()
		if i%2 == 0 {
			// The leader's node goes while the waiter reconnects.
			require.NoError(t, latches[leaderAt].Resign(ctx))
			lead := await(t, latches[waiter], 10*time.Second, "the waiter after a resignation")
			if !checkGrant(t, clients[waiter], lead) {
				break
			}
			grants++
			leaderAt = waiter
			continue
		}
		select {
		case <-reconnected[waiter]:
		case <-time.After(10 * time.Second):
			t.Fatalf("iteration %d: the waiter did not reconnect", i)
		}
		require.False(t, latches[waiter].HasLeadership(), "iteration %d: the waiter leads after a reconnect", i)
		require.True(t, latches[leaderAt].HasLeadership(), "iteration %d: the leader lost its term to a cut of the waiter", i)
	}
	close(stop)
	wg.Wait()
	assert.Zero(t, overlaps.Load(), "instants at which both latches led")
	t.Logf("%d iterations, %d grants checked", iterations, grants)
}
