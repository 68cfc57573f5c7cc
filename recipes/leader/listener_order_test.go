package leader_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// Under a random sequence of connection cuts, deleted nodes and
// resignations, every latch's listener is called one call at a time,
// IsLeader and NotLeader strictly alternating from IsLeader; run with
// -race, the calls' goroutines are checked too. At the end every latch
// leads or waits: none was left out of the election.
func TestLatch_ListenersAlternateUnderRandomFaults(t *testing.T) {
	steps := 60
	if testing.Short() {
		steps = 15
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	servers := zktest.Servers(t)
	operator := connect(t, servers)
	p := zktest.UniquePath(t)
	var (
		latches []*leader.Latch
		proxies []*zktest.Proxy
		recs    []*recorder
	)
	for i := range 3 {
		proxy := zktest.NewProxy(t, servers)
		mode := leader.Silent
		if i == 0 {
			mode = leader.Notify
		}
		l := startLatch(t, connect(t, proxy.Addr(), framework.WithSessionTimeout(4*time.Second)), p, leader.WithCloseMode(mode))
		// Two listeners on one latch: never called at once either.
		rec, other := newRecorder(), newRecorder()
		rec.hold, other.hold, other.busy = time.Millisecond, time.Millisecond, rec.busy
		l.AddListener(rec.listen)
		l.AddListener(other.listen)
		latches, proxies, recs = append(latches, l), append(proxies, proxy), append(recs, rec, other)
	}
	ctx := testContext(t)
	for step := range steps {
		require.Eventually(t, func() bool { return leaders(latches...) == 1 }, 20*time.Second, 2*time.Millisecond, "one leader before step %d", step)
		i := rng.IntN(len(latches))
		if rng.IntN(4) > 0 { // mostly the leader: faults elsewhere change less
			i = slices.IndexFunc(latches, func(l *leader.Latch) bool { return l.HasLeadership() })
			i = max(i, 0)
		}
		switch rng.IntN(3) {
		case 0:
			proxies[i].Cut()
		case 1:
			if lead := leading(latches[i]); lead != nil {
				_ = operator.Delete(ctx, lead.Node(), -1) // may be gone already
			}
		case 2:
			assert.NoError(t, latches[i].Resign(ctx))
		}
	}
	// Nobody is left neither leading nor waiting: every latch has a node.
	require.Eventually(t, func() bool { return len(children(t, operator, p)) == len(latches) }, 20*time.Second, 5*time.Millisecond, "every latch queued")
	// The head learns it leads from its predecessor's deletion notice, a
	// moment after the queue shows every node.
	require.Eventually(t, func() bool { return leaders(latches...) == 1 }, 10*time.Second, 5*time.Millisecond, "one latch leads")
	for _, l := range latches {
		require.NoError(t, l.Close(ctx))
	}
	for i, rec := range recs {
		if i < 2 { // Notify: the last term's NotLeader comes
			require.Eventually(t, func() bool {
				calls, _ := rec.seen()
				return len(calls)%2 == 0
			}, 10*time.Second, 5*time.Millisecond)
		}
		calls, faults := rec.seen()
		assert.Empty(t, faults, "listener %d of latch %d", i%2, i/2)
		t.Logf("listener %d of latch %d: %d calls", i%2, i/2, len(calls))
	}
	// A latch closed while its create was on the wire leaves the node to
	// the client's background clean-up (see Close).
	require.Eventually(t, func() bool { return len(children(t, operator, p)) == 0 }, 10*time.Second, 10*time.Millisecond)
}

// leading returns l's term if it leads now, else nil.
func leading(l *leader.Latch) *leader.Leadership {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if !l.HasLeadership() {
		return nil
	}
	lead, err := l.Await(ctx)
	if err != nil {
		return nil
	}
	return lead
}

// A listener added while the latch leads is told IsLeader first, so that
// the NotLeader that ends the term never comes alone; a removed listener
// is told nothing more.
func TestLatch_ListenerAddedWhileLeadingIsToldIsLeaderFirst(t *testing.T) {
	l := startLatch(t, connect(t, zktest.Servers(t)), zktest.UniquePath(t))
	await(t, l, 10*time.Second, "the latch")
	late, removed := newRecorder(), newRecorder()
	l.AddListener(late.listen)
	remove := l.AddListener(removed.listen)
	late.waitCalls(t, []string{"is"})
	removed.waitCalls(t, []string{"is"})
	remove()
	require.NoError(t, l.Resign(testContext(t)))
	late.waitCalls(t, []string{"is", "not"})
	calls, _ := removed.seen()
	assert.Equal(t, []string{"is"}, calls)
}
