package semaphore_test

import (
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

// A lease handed out after a take-over (Resume) has ended has a greater
// fencing token than the take-over, although its node was created before
// the take-over: its acquirer created it, then waited for room. A resource
// that keeps the highest token admits it.
func TestSemaphore_LeaseAfterATakeOverHasAGreaterToken(t *testing.T) {
	servers := zktest.Servers(t)
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	sem := func() *semaphore.Semaphore {
		return newSemaphore(t, connect(t, servers), path, 1, semaphore.WithTTL(time.Minute))
	}
	held, err := sem().Acquire(ctx)
	require.NoError(t, err)
	got := make(chan result[*leases.Lease], 1)
	waiter := sem()
	go func() { // ends when the acquire returns
		l, err := waiter.Acquire(ctx)
		got <- result[*leases.Lease]{l, err}
	}()
	observer := connect(t, servers)
	require.Eventually(t, func() bool { return len(children(t, observer, path+"/leases")) == 2 },
		10*time.Second, 5*time.Millisecond, "the waiter's lease node")

	resumed, err := sem().Resume(ctx, zkpath.Base(held.Node()))
	require.NoError(t, err)
	resumedToken, err := resumed.FencingToken(ctx)
	require.NoError(t, err)
	require.NoError(t, resumed.Release(ctx))

	var r result[*leases.Lease]
	select {
	case r = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("the waiter was not handed the lease")
	}
	require.NoError(t, r.err)
	next, err := r.v.FencingToken(ctx)
	require.NoError(t, err)
	assert.Greater(t, next, resumedToken, "the next holder's token is above the take-over's")
	// The earlier holder learns of the take-over from its node's watch, a
	// notification that may come after the waiter's answer.
	select {
	case <-held.Lost():
	case <-time.After(10 * time.Second):
		t.Fatal("the earlier holder never learned of the take-over")
	}
	require.ErrorIs(t, held.Release(ctx), leases.ErrLost, "the earlier holder was taken over")
	require.NoError(t, r.v.Release(ctx))
}

// Every way a lease is granted gives it its token at hand-out, without a
// request, at least its node's creation zxid and above the token of every
// lease that ended before: the transaction that saw room, the listing of
// a waiter, the leases of one multi-lease acquire (which share the grant),
// and the listing after a transaction whose answer was lost.
func TestSemaphore_EveryGrantGivesATokenWithoutARequest(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := connect(t, proxy.Addr(), framework.WithSessionTimeout(10*time.Second),
		framework.WithRetryPolicy(framework.RetryForever(5*time.Millisecond)))
	observer := connect(t, zktest.Servers(t))
	ctx := testContext(t)
	path := zktest.UniquePath(t)
	s := newSemaphore(t, c, path, 2)
	// tokens returns the token of ls, checking it; with counted, that
	// asking costs no request (the client's background looks for a lost
	// create's late run would blur the count after a lost answer).
	tokens := func(what string, counted bool, ls ...*leases.Lease) int64 {
		t.Helper()
		before := proxy.Sent()
		var first int64
		for i, l := range ls {
			token, err := l.FencingToken(ctx)
			require.NoError(t, err, what)
			if i == 0 {
				first = token
			}
			assert.Equal(t, first, token, "%s: one grant for one acquire", what)
		}
		if counted {
			assert.Equal(t, before, proxy.Sent(), "%s: known without a request", what)
		}
		for _, l := range ls {
			_, stat, err := observer.Get(ctx, l.Node())
			require.NoError(t, err, what)
			assert.GreaterOrEqual(t, first, stat.Czxid, "%s: not below the node's creation", what)
		}
		return first
	}

	a, err := s.Acquire(ctx)
	require.NoError(t, err)
	last := tokens("transaction", true, a)
	b, err := s.Acquire(ctx)
	require.NoError(t, err)
	got := make(chan result[*leases.Lease], 1)
	go func() { // ends when the acquire returns
		l, err := s.Acquire(ctx)
		got <- result[*leases.Lease]{l, err}
	}()
	require.Eventually(t, func() bool { return len(children(t, observer, path+"/leases")) == 3 },
		10*time.Second, 5*time.Millisecond, "the waiter's lease node")
	require.NoError(t, a.Release(ctx))
	w := <-got
	require.NoError(t, w.err)
	token := tokens("wait", true, w.v)
	assert.Greater(t, token, last, "wait: above the lease released before")
	last = token
	require.NoError(t, leases.ReleaseAll(ctx, b, w.v))

	ls, err := s.AcquireN(ctx, 2)
	require.NoError(t, err)
	token = tokens("several", true, ls...)
	assert.Greater(t, token, last, "several: above the leases returned before")
	last = token
	require.NoError(t, leases.ReleaseAll(ctx, ls...))

	proxy.DropNextCreateReply() // the guard's node
	proxy.DropNextCreateReply() // the transaction
	l, err := s.Acquire(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, proxy.DroppedReplies())
	token = tokens("lost answer", false, l)
	assert.Greater(t, token, last, "lost answer: above the leases returned before")
	require.NoError(t, l.Release(ctx))
}
