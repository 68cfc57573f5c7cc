package leader_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// sent is how many requests of each type but pings clients have sent
// through proxy.
func sent(proxy *zktest.Proxy) map[int32]int64 {
	const opPing = 11
	out := make(map[int32]int64)
	for op := int32(-20); op < 128; op++ {
		if n := proxy.Requests(op); n > 0 && op != opPing {
			out[op] = n
		}
	}
	return out
}

func total(m map[int32]int64) (n int64) {
	for _, v := range m {
		n += v
	}
	return n
}

// A join costs at most four requests: the create and the listing behind
// it, and, for a waiter, the watches of the node in front and of its own.
// A hand-off to a participant that was next in line when it last looked
// is the leader's delete alone: the successor leads on the deletion's
// notification, with no read. Otherwise it is two: the delete and the
// successor's listing.
func TestLatch_JoinCostsAtMostFourRequestsAndAHandOffOneOrTwo(t *testing.T) {
	servers := zktest.Servers(t)
	p := zktest.UniquePath(t)
	// The directory exists already, as in a running election: its first
	// creation costs the parents' creates once. It is persistent here: the
	// server reaps an empty container (the test server within a second),
	// and a slow run then paid for the parents in the first join.
	dir := connect(t, servers)
	_, err := dir.Create(testContext(t), p, nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	t.Cleanup(func() { _ = dir.Delete(context.Background(), p, -1) }) // after the latches' Close

	proxies := []*zktest.Proxy{zktest.NewProxy(t, servers), zktest.NewProxy(t, servers), zktest.NewProxy(t, servers)}
	for _, proxy := range proxies {
		proxy.MakeOld() // the one-shot path's costs; the mutex tests both
	}
	var latches []*leader.Latch
	for i, proxy := range proxies {
		c := connect(t, proxy.Addr())
		base := total(sent(proxy)) // the client's connect
		latches = append(latches, startLatch(t, c, p))
		if i == 0 {
			await(t, latches[0], 10*time.Second, "the leader")
		}
		// A waiter is armed when it has watched its own node and the one in front.
		require.Eventually(t, func() bool { return proxy.Requests(zktest.OpGetData) == min(int64(i+1), 2) }, 10*time.Second, 2*time.Millisecond)
		assert.LessOrEqual(t, total(sent(proxy))-base, int64(4), "latch %d's join: %v", i, sent(proxy))
	}
	// The second in line looked when it was next: it leads on the
	// deletion's notification alone. The third looked when it was third:
	// it watches only the node in front, as Curator's latch does, and
	// lists the queue once when that goes, two requests for its hand-off.
	for i, wantList := range []int64{0, 1} {
		before := []map[int32]int64{sent(proxies[i]), sent(proxies[i+1]), sent(proxies[2])}
		require.NoError(t, latches[i].Close(testContext(t)))
		lead := await(t, latches[i+1], 10*time.Second, "the next in line")
		assert.NoError(t, lead.Err())
		after := []map[int32]int64{sent(proxies[i]), sent(proxies[i+1]), sent(proxies[2])}
		assert.Equal(t, int64(1), total(after[0])-total(before[0]), "the leader's hand-off: %v then %v", before[0], after[0])
		assert.Equal(t, int64(1), after[0][zktest.OpDelete]-before[0][zktest.OpDelete], "the leader's one request is the delete")
		assert.Equal(t, wantList, total(after[1])-total(before[1]), "the successor's requests to lead: %v then %v", before[1], after[1])
		assert.Equal(t, wantList, after[1][zktest.OpGetChildren2]-before[1][zktest.OpGetChildren2], "the successor's one request is the listing")
		if i == 0 {
			assert.Equal(t, before[2], after[2], "the third in line sent nothing")
		}
	}
}

// A selector's queue costs what a latch's does: a join is at most four
// requests, and a hand-off is the leader's delete alone for a successor
// that was next in line when it looked, else the delete and one listing.
func TestSelector_JoinCostsAtMostFourRequestsAndAHandOffOneOrTwo(t *testing.T) {
	servers := zktest.Servers(t)
	ctx := zktest.Context(t)
	p := zktest.UniquePath(t)
	// The directory exists already, as in a running election.
	require.NoError(t, newSelector(t, zktest.Connect(t, servers), p, returns).Run(ctx))

	proxies := []*zktest.Proxy{zktest.NewProxy(t, servers), zktest.NewProxy(t, servers), zktest.NewProxy(t, servers)}
	for _, proxy := range proxies {
		proxy.MakeOld() // the one-shot path's costs; the mutex tests both
	}
	started := make(chan int)
	ends := []chan struct{}{make(chan struct{}), make(chan struct{}), make(chan struct{})}
	runs := []chan error{make(chan error, 1), make(chan error, 1), make(chan error, 1)}
	for i, proxy := range proxies {
		s := newSelector(t, zktest.Connect(t, proxy.Addr()), p, func(ctx context.Context) error {
			started <- i
			select {
			case <-ends[i]:
			case <-ctx.Done():
			}
			return nil
		})
		base := total(sent(proxy)) // the client's connect
		// Ends after the selector's one term.
		go func() { runs[i] <- s.Run(ctx) }()
		if i == 0 {
			require.Equal(t, 0, <-started)
		}
		// A waiter is armed when it has watched its own node and the one in front.
		require.Eventually(t, func() bool { return proxy.Requests(zktest.OpGetData) == min(int64(i+1), 2) }, 10*time.Second, 2*time.Millisecond)
		assert.LessOrEqual(t, total(sent(proxy))-base, int64(4), "selector %d's join: %v", i, sent(proxy))
	}
	for i, wantList := range []int64{0, 1} {
		before := []map[int32]int64{sent(proxies[i]), sent(proxies[i+1]), sent(proxies[2])}
		close(ends[i])
		require.NoError(t, <-runs[i])
		require.Equal(t, i+1, <-started, "the next in line leads")
		after := []map[int32]int64{sent(proxies[i]), sent(proxies[i+1]), sent(proxies[2])}
		assert.Equal(t, int64(1), total(after[0])-total(before[0]), "the leader's hand-off: %v then %v", before[0], after[0])
		assert.Equal(t, int64(1), after[0][zktest.OpDelete]-before[0][zktest.OpDelete], "the leader's one request is the delete")
		assert.Equal(t, wantList, total(after[1])-total(before[1]), "the successor's requests to lead: %v then %v", before[1], after[1])
		if i == 0 {
			assert.Equal(t, before[2], after[2], "the third in line sent nothing")
		}
	}
	close(ends[2])
	require.NoError(t, <-runs[2])
}

// On a server with persistent watches, the rotation the anchor harness
// runs (the leader closes its latch and joins again at once with a new
// one, others waiting) costs at most four requests per hand-off in all
// clients together: the leader's delete, its create and listing, and at
// most one listing more. Each latch's directory watch is the client's
// one, taken over from the latch before it without a request.
func TestLatch_ARotationHandOffCostsAtMostFourRequests(t *testing.T) {
	servers := zktest.Servers(t)
	p := zktest.UniquePath(t)
	const participants, rounds = 3, 30
	proxies := make([]*zktest.Proxy, participants)
	clients := make([]*framework.Client, participants)
	latches := make([]*leader.Latch, participants)
	for i := range participants {
		proxies[i] = zktest.NewProxy(t, servers)
		clients[i] = connect(t, proxies[i].Addr())
		latches[i] = startLatch(t, clients[i], p)
		if i == 0 {
			await(t, latches[0], 10*time.Second, "the first leader")
		}
	}
	leading := func() int {
		for {
			for i, l := range latches {
				if l.HasLeadership() {
					return i
				}
			}
			time.Sleep(time.Millisecond)
		}
	}
	all := func() (n int64) {
		for _, proxy := range proxies {
			n += total(sent(proxy))
		}
		return n
	}
	// Warm: every client has made its watch once.
	for range participants {
		i := leading()
		require.NoError(t, latches[i].Close(testContext(t)))
		latches[i] = startLatch(t, clients[i], p)
	}
	time.Sleep(100 * time.Millisecond)
	before := all()
	for range rounds {
		i := leading()
		require.NoError(t, latches[i].Close(testContext(t)))
		latches[i] = startLatch(t, clients[i], p)
	}
	leading()
	time.Sleep(100 * time.Millisecond) // the last joins' requests
	perHandOff := float64(all()-before) / rounds
	t.Logf("requests per hand-off: %.2f", perHandOff)
	for _, proxy := range proxies {
		assert.Zero(t, proxy.Requests(zktest.OpRemoveWatches), "a removeWatches: the watch was not taken over")
	}
	assert.LessOrEqual(t, perHandOff, 4.0)
}
