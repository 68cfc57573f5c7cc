package leader_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// Three selectors on one path lead one after the other, never two at
// once, each term with a higher fencing token, and leave the election
// empty.
func TestSelector_HandsOffBetweenThreeSelectors(t *testing.T) {
	servers := zktest.Servers(t)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	oc := zktest.Connect(t, servers)
	var active atomic.Int32
	type term struct {
		id    string
		token int64
		end   chan struct{}
	}
	started := make(chan term)
	runs := make(chan error, 3)
	for i := range 3 {
		id := fmt.Sprintf("s%d", i)
		s := newSelector(t, zktest.Connect(t, servers), path, func(ctx context.Context) error {
			assert.Equal(t, int32(1), active.Add(1), "two leaders at once")
			defer active.Add(-1)
			l, ok := leader.LeadershipFrom(ctx)
			if !assert.True(t, ok) {
				return nil
			}
			token, err := l.FencingToken(ctx)
			assert.NoError(t, err)
			tm := term{id: id, token: token, end: make(chan struct{})}
			started <- tm
			<-tm.end
			return nil
		}, leader.WithID(id))
		// Ends when the selector's one term ends.
		go func() { runs <- s.Run(ctx) }()
	}
	var last int64
	seen := map[string]bool{}
	for range 3 {
		tm := <-started
		assert.False(t, seen[tm.id], "%s led twice", tm.id)
		seen[tm.id] = true
		assert.Greater(t, tm.token, last, "fencing token of %s", tm.id)
		last = tm.token
		close(tm.end)
		require.NoError(t, <-runs)
	}
	assert.Empty(t, zktest.Children(t, oc, path))
}

// Hard stop: a function that ignores its context for 2 s after Close
// keeps the successor out until it returns; past the stop timeout a
// warning names the path and the participant, and Close says so.
func TestSelector_HardStop_NoSuccessorUntilTheFunctionReturns(t *testing.T) {
	t.Parallel()
	servers := zktest.Servers(t)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	oc := zktest.Connect(t, servers)
	logger, lines := capturedLogger()
	var aReturned atomic.Bool
	aLeads := make(chan struct{})
	a := newSelector(t, zktest.Connect(t, servers), path, func(ctx context.Context) error {
		close(aLeads)
		<-ctx.Done()
		assert.ErrorIs(t, context.Cause(ctx), leader.ErrClosed)
		time.Sleep(2 * time.Second) // the function ignores its context
		aReturned.Store(true)
		return nil
	}, leader.WithID("stubborn"), leader.WithStopTimeout(300*time.Millisecond), leader.WithLogger(logger))
	bStarted := make(chan bool, 1)
	b := newSelector(t, zktest.Connect(t, servers), path, func(context.Context) error {
		bStarted <- aReturned.Load()
		return nil
	}, leader.WithID("successor"))
	aRun := make(chan error, 1)
	go func() { aRun <- a.Run(ctx) }() // ends when a's term ends
	<-aLeads
	bRun := make(chan error, 1)
	go func() { bRun <- b.Run(ctx) }() // ends when b's term ends
	require.Eventually(t, func() bool { return len(zktest.Children(t, oc, path)) == 2 },
		10*time.Second, 10*time.Millisecond, "the successor queues")

	err := a.Close(ctx)
	require.ErrorIs(t, err, leader.ErrStopTimeout)
	assert.False(t, aReturned.Load(), "Close waited for the function")
	require.Eventually(t, func() bool { return strings.Contains(lines.String(), "stop timeout") },
		5*time.Second, 10*time.Millisecond, "the warning")
	assert.Contains(t, lines.String(), "path="+path)
	assert.Contains(t, lines.String(), "participant=stubborn")
	assert.True(t, <-bStarted, "the successor started before the function returned")
	require.ErrorIs(t, <-aRun, leader.ErrClosed)
	require.NoError(t, <-bRun)
}

// A loss of leadership cancels the function's context with a cause that
// wraps ErrLost: a connection cut under the standard policy; the
// session's end under the session policy.
func TestSelector_LossCancelsTheFunction(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		policy framework.ErrorPolicy
		fault  func(*zktest.Proxy)
	}{
		"connection cut":  {framework.StandardErrorPolicy, (*zktest.Proxy).Cut},
		"session expired": {framework.SessionErrorPolicy, (*zktest.Proxy).Pause},
	} {
		t.Run(name, func(t *testing.T) {
			proxy := zktest.NewProxy(t, zktest.Servers(t))
			c := zktest.Connect(t, proxy.Addr(), framework.WithSessionTimeout(2*time.Second))
			ctx := zktest.Context(t)
			leads := make(chan *leader.Leadership, 1)
			s := newSelector(t, c, zktest.UniquePath(t), func(ctx context.Context) error {
				l, _ := leader.LeadershipFrom(ctx)
				leads <- l
				<-ctx.Done()
				return context.Cause(ctx)
			}, leader.WithErrorPolicy(tc.policy))
			run := make(chan error, 1)
			go func() { run <- s.Run(ctx) }() // ends when the term ends
			l := <-leads
			tc.fault(proxy)
			err := <-run
			proxy.Resume()
			require.ErrorIs(t, err, leader.ErrLost)
			zktest.WaitClosed(t, l.Lost(), time.Second, "the term's Lost")
			require.ErrorIs(t, l.Err(), leader.ErrLost)
		})
	}
}

// A function cancelled by a suspended connection still keeps its node,
// and so every successor out, until it returns, even when the connection
// comes back in the same session meanwhile.
func TestSelector_SuspendedFunctionKeepsTheSuccessorOutUntilItReturns(t *testing.T) {
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	oc := zktest.Connect(t, servers)
	ac := zktest.Connect(t, proxy.Addr())
	var aReturned atomic.Bool
	aLeads, aCancelled, unblock := make(chan struct{}), make(chan struct{}), make(chan struct{})
	a := newSelector(t, ac, path, func(ctx context.Context) error {
		session := ac.Session()
		close(aLeads)
		<-ctx.Done()
		close(aCancelled)
		<-unblock
		assert.Equal(t, session, ac.Session(), "the session survived")
		aReturned.Store(true)
		return nil
	}, leader.WithID("a"), leader.WithStopTimeout(100*time.Millisecond))
	bStarted := make(chan bool, 1)
	b := newSelector(t, zktest.Connect(t, servers), path, func(context.Context) error {
		bStarted <- aReturned.Load()
		return nil
	}, leader.WithID("b"))
	aRun := make(chan error, 1)
	go func() { aRun <- a.Run(ctx) }() // ends when a's term ends
	<-aLeads
	bRun := make(chan error, 1)
	go func() { bRun <- b.Run(ctx) }() // ends when b's term ends
	require.Eventually(t, func() bool { return len(zktest.Children(t, oc, path)) == 2 },
		10*time.Second, 10*time.Millisecond, "the successor queues")
	proxy.Cut()
	<-aCancelled
	require.NoError(t, ac.WaitConnected(ctx))
	assert.Never(t, func() bool { return len(bStarted) > 0 }, time.Second, 10*time.Millisecond,
		"the successor started while the function still ran")
	close(unblock)
	assert.True(t, <-bStarted, "the successor started before the function returned")
	require.NoError(t, <-aRun)
	require.NoError(t, <-bRun)
}

func TestNewSelector_RejectsBadInput(t *testing.T) {
	c := zktest.Connect(t, zktest.Servers(t))
	for name, tc := range map[string]struct {
		c    *framework.Client
		path string
		opts []leader.Option
	}{
		"nil client":            {nil, "/e", nil},
		"root":                  {c, "/", nil},
		"bad path":              {c, "/e/", nil},
		"nil option":            {c, "/e", []leader.Option{nil}},
		"id not UTF-8":          {c, "/e", []leader.Option{leader.WithID("\xff")}},
		"zero stop timeout":     {c, "/e", []leader.Option{leader.WithStopTimeout(0)}},
		"unknown error policy":  {c, "/e", []leader.Option{leader.WithErrorPolicy(framework.ErrorPolicy(99))}},
		"nil logger":            {c, "/e", []leader.Option{leader.WithLogger(nil)}},
		"negative stop timeout": {c, "/e", []leader.Option{leader.WithStopTimeout(-time.Second)}},
		"a latch's close mode":  {c, "/e", []leader.Option{leader.WithCloseMode(leader.Notify)}},
		"an observer's option":  {c, "/e", []leader.Option{leader.ObserveSelector()}},
		// The id alone is under the limit; the node's create, with the
		// path and the protected name, would be over it.
		"node over the server's limit": {c, "/e", []leader.Option{leader.WithID(strings.Repeat("x", framework.MaxRequestSize-20))}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := leader.NewSelector(tc.c, tc.path, returns, tc.opts...)
			require.ErrorIs(t, err, leader.ErrInvalidArgument)
		})
	}
	_, err := leader.NewSelector(c, "/e", nil)
	require.ErrorIs(t, err, leader.ErrInvalidArgument, "nil function")
	s := newSelector(t, c, "/e", func(context.Context) error { return errors.New("ran") })
	require.NoError(t, s.Close(context.Background()))
	require.ErrorIs(t, s.Run(context.Background()), leader.ErrClosed)
	require.ErrorIs(t, s.Start(context.Background()), leader.ErrClosed)
}

// Two calls of Run on one Selector are two participants: they exclude
// each other as selectors of two processes do.
func TestSelector_TwoRunsOfOneSelectorExcludeEachOther(t *testing.T) {
	servers := zktest.Servers(t)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	oc := zktest.Connect(t, servers)
	var active atomic.Int32
	started := make(chan chan struct{})
	s := newSelector(t, zktest.Connect(t, servers), path, func(context.Context) error {
		assert.Equal(t, int32(1), active.Add(1), "both runs lead")
		defer active.Add(-1)
		end := make(chan struct{})
		started <- end
		<-end
		return nil
	})
	runs := make(chan error, 2)
	for range 2 {
		go func() { runs <- s.Run(ctx) }() // ends when its term ends
	}
	end := <-started
	require.Eventually(t, func() bool { return len(zktest.Children(t, oc, path)) == 2 },
		10*time.Second, 10*time.Millisecond, "the second run queues")
	close(end)
	require.NoError(t, <-runs)
	close(<-started)
	require.NoError(t, <-runs)
}

// A Run still queued when Close comes, or when its ctx ends, returns
// without calling its function and leaves nothing behind.
func TestSelector_QueuedRunEndsOnCloseOrCtxAndLeavesNothing(t *testing.T) {
	servers := zktest.Servers(t)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	oc := zktest.Connect(t, servers)
	leads := make(chan struct{})
	holder := newSelector(t, zktest.Connect(t, servers), path,
		func(ctx context.Context) error { close(leads); <-ctx.Done(); return nil })
	holderRun := make(chan error, 1)
	go func() { holderRun <- holder.Run(ctx) }() // ends when holder is closed
	<-leads
	never := func(context.Context) error {
		t.Error("a queued run led")
		return nil
	}

	closed := newSelector(t, zktest.Connect(t, servers), path, never)
	run := make(chan error, 1)
	go func() { run <- closed.Run(ctx) }() // ends with Close
	require.Eventually(t, func() bool { return len(zktest.Children(t, oc, path)) == 2 },
		10*time.Second, 10*time.Millisecond, "the run queues")
	require.NoError(t, closed.Close(ctx))
	require.ErrorIs(t, <-run, leader.ErrClosed)
	// The listing may show the node before the run has the create's
	// answer; a run that ends then leaves the node to the client, which
	// deletes it as soon as that answer is in.
	require.Eventually(t, func() bool { return len(zktest.Children(t, oc, path)) == 1 },
		10*time.Second, 10*time.Millisecond, "the closed run's node is gone")

	rctx, cancel := context.WithCancel(ctx)
	cancelled := newSelector(t, zktest.Connect(t, servers), path, never)
	go func() { run <- cancelled.Run(rctx) }() // ends when rctx ends
	require.Eventually(t, func() bool { return len(zktest.Children(t, oc, path)) == 2 },
		10*time.Second, 10*time.Millisecond, "the run queues")
	cancel()
	require.ErrorIs(t, <-run, context.Canceled)
	// As above: the node may go a moment after the run ends.
	require.Eventually(t, func() bool { return len(zktest.Children(t, oc, path)) == 1 },
		10*time.Second, 10*time.Millisecond, "the cancelled run's node is gone")
	require.NoError(t, holder.Close(ctx))
	require.ErrorIs(t, <-holderRun, leader.ErrClosed)
}

// A Run whose server cannot be reached from the start returns when its
// ctx ends, and its function is never called.
func TestSelector_UnreachableServerRunEndsWithCtx(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	c := zktest.Connect(t, proxy.Addr())
	proxy.Pause()
	defer proxy.Resume()
	ctx, cancel := context.WithTimeout(zktest.Context(t), time.Second)
	defer cancel()
	err := newSelector(t, c, zktest.UniquePath(t), func(context.Context) error {
		t.Error("led without a server")
		return nil
	}).Run(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// A function that closes its own Selector (a service shutting down from
// its leader's work) is not kept waiting on itself: Close returns at once,
// and the node goes once the function returns.
func TestSelector_CloseFromItsOwnFunctionDoesNotWaitOnIt(t *testing.T) {
	servers := zktest.Servers(t)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	var s *leader.Selector
	s = newSelector(t, zktest.Connect(t, servers), path, func(ctx context.Context) error {
		assert.NoError(t, s.Close(ctx))
		<-ctx.Done()
		assert.ErrorIs(t, context.Cause(ctx), leader.ErrClosed)
		return nil
	}, leader.WithStopTimeout(time.Minute))
	require.ErrorIs(t, s.Run(ctx), leader.ErrClosed)
	assert.Empty(t, zktest.Children(t, zktest.Connect(t, servers), path))
}

// Start runs the selector in the background, as every recipe that runs
// there: Done closes once it has stopped, and Err says why it stopped on
// its own (the function's error after its one term, the end of Start's
// ctx), nil after Close.
func TestSelector_StartRunsInTheBackgroundUntilCloseAndErrSaysWhy(t *testing.T) {
	servers := zktest.Servers(t)
	ctx := zktest.Context(t)
	leads := make(chan struct{}, 1)
	waits := func(ctx context.Context) error { leads <- struct{}{}; <-ctx.Done(); return nil }

	closed := newSelector(t, zktest.Connect(t, servers), zktest.UniquePath(t), waits)
	require.NoError(t, closed.Start(ctx))
	require.ErrorIs(t, closed.Start(ctx), leader.ErrStarted)
	<-leads
	select {
	case <-closed.Done():
		t.Fatal("Done closed while the selector leads")
	default:
	}
	require.NoError(t, closed.Close(ctx))
	zktest.WaitClosed(t, closed.Done(), time.Second, "Done after Close")
	assert.NoError(t, closed.Err(), "closed, not stopped on its own")

	failed := errors.New("failed")
	once := newSelector(t, zktest.Connect(t, servers), zktest.UniquePath(t), func(context.Context) error { return failed })
	require.NoError(t, once.Start(ctx))
	zktest.WaitClosed(t, once.Done(), 10*time.Second, "Done after the one term")
	require.ErrorIs(t, once.Err(), failed)

	sctx, cancel := context.WithCancel(ctx)
	ended := newSelector(t, zktest.Connect(t, servers), zktest.UniquePath(t), waits, leader.WithAutoRequeue())
	require.NoError(t, ended.Start(sctx))
	<-leads
	cancel()
	zktest.WaitClosed(t, ended.Done(), 10*time.Second, "Done after the end of Start's ctx")
	require.ErrorIs(t, ended.Err(), context.Canceled)
}
