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
		s := newSelector(t, zktest.Connect(t, servers), path, leader.WithID(id))
		// Ends when the selector's one term ends.
		go func() {
			runs <- s.Run(ctx, func(ctx context.Context) error {
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
			})
		}()
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
	servers := zktest.Servers(t)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	oc := zktest.Connect(t, servers)
	logger, lines := capturedLogger()
	a := newSelector(t, zktest.Connect(t, servers), path, leader.WithID("stubborn"),
		leader.WithStopTimeout(300*time.Millisecond), leader.WithLogger(logger))
	b := newSelector(t, zktest.Connect(t, servers), path, leader.WithID("successor"))
	var aReturned atomic.Bool
	aLeads := make(chan struct{})
	aRun := make(chan error, 1)
	// Ends when a's term ends.
	go func() {
		aRun <- a.Run(ctx, func(ctx context.Context) error {
			close(aLeads)
			<-ctx.Done()
			assert.ErrorIs(t, context.Cause(ctx), leader.ErrClosed)
			time.Sleep(2 * time.Second) // the function ignores its context
			aReturned.Store(true)
			return nil
		})
	}()
	<-aLeads
	bStarted := make(chan bool, 1)
	bRun := make(chan error, 1)
	// Ends when b's term ends.
	go func() {
		bRun <- b.Run(ctx, func(context.Context) error {
			bStarted <- aReturned.Load()
			return nil
		})
	}()
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
			s := newSelector(t, c, zktest.UniquePath(t), leader.WithErrorPolicy(tc.policy))
			leads := make(chan *leader.Leadership, 1)
			run := make(chan error, 1)
			// Ends when the term ends.
			go func() {
				run <- s.Run(ctx, func(ctx context.Context) error {
					l, _ := leader.LeadershipFrom(ctx)
					leads <- l
					<-ctx.Done()
					return context.Cause(ctx)
				})
			}()
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
	a := newSelector(t, ac, path, leader.WithID("a"), leader.WithStopTimeout(100*time.Millisecond))
	b := newSelector(t, zktest.Connect(t, servers), path, leader.WithID("b"))
	var aReturned atomic.Bool
	aLeads, aCancelled, unblock := make(chan struct{}), make(chan struct{}), make(chan struct{})
	aRun := make(chan error, 1)
	// Ends when a's term ends.
	go func() {
		aRun <- a.Run(ctx, func(ctx context.Context) error {
			session := ac.Session()
			close(aLeads)
			<-ctx.Done()
			close(aCancelled)
			<-unblock
			assert.Equal(t, session, ac.Session(), "the session survived")
			aReturned.Store(true)
			return nil
		})
	}()
	<-aLeads
	bStarted := make(chan bool, 1)
	bRun := make(chan error, 1)
	// Ends when b's term ends.
	go func() {
		bRun <- b.Run(ctx, func(context.Context) error {
			bStarted <- aReturned.Load()
			return nil
		})
	}()
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
		// The id alone is under the limit; the node's create, with the
		// path and the protected name, would be over it.
		"node over the server's limit": {c, "/e", []leader.Option{leader.WithID(strings.Repeat("x", framework.MaxRequestSize-20))}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := leader.NewSelector(tc.c, tc.path, tc.opts...)
			require.ErrorIs(t, err, leader.ErrInvalidArgument)
		})
	}
	s := newSelector(t, c, "/e")
	require.ErrorIs(t, s.Run(context.Background(), nil), leader.ErrInvalidArgument)
	require.NoError(t, s.Close(context.Background()))
	err := s.Run(context.Background(), func(context.Context) error { return errors.New("ran") })
	require.ErrorIs(t, err, leader.ErrClosed)
}

// Two calls of Run on one Selector are two participants: they exclude
// each other as selectors of two processes do.
func TestSelector_TwoRunsOfOneSelectorExcludeEachOther(t *testing.T) {
	servers := zktest.Servers(t)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	oc := zktest.Connect(t, servers)
	s := newSelector(t, zktest.Connect(t, servers), path)
	var active atomic.Int32
	started := make(chan chan struct{})
	runs := make(chan error, 2)
	for range 2 {
		// Ends when its term ends.
		go func() {
			runs <- s.Run(ctx, func(context.Context) error {
				assert.Equal(t, int32(1), active.Add(1), "both runs lead")
				defer active.Add(-1)
				end := make(chan struct{})
				started <- end
				<-end
				return nil
			})
		}()
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
	holder := newSelector(t, zktest.Connect(t, servers), path)
	leads := make(chan struct{})
	holderRun := make(chan error, 1)
	// Ends when holder is closed.
	go func() {
		holderRun <- holder.Run(ctx, func(ctx context.Context) error { close(leads); <-ctx.Done(); return nil })
	}()
	<-leads
	never := func(context.Context) error {
		t.Error("a queued run led")
		return nil
	}

	closed := newSelector(t, zktest.Connect(t, servers), path)
	run := make(chan error, 1)
	// Ends with Close.
	go func() { run <- closed.Run(ctx, never) }()
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
	// Ends when rctx ends.
	go func() { run <- newSelector(t, zktest.Connect(t, servers), path).Run(rctx, never) }()
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
	err := newSelector(t, c, zktest.UniquePath(t)).Run(ctx, func(context.Context) error {
		t.Error("led without a server")
		return nil
	})
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// A function that closes its own Selector (a service shutting down from
// its leader's work) is not kept waiting on itself: Close returns at once,
// and the node goes once the function returns.
func TestSelector_CloseFromItsOwnFunctionDoesNotWaitOnIt(t *testing.T) {
	servers := zktest.Servers(t)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	s := newSelector(t, zktest.Connect(t, servers), path, leader.WithStopTimeout(time.Minute))
	err := s.Run(ctx, func(ctx context.Context) error {
		assert.NoError(t, s.Close(ctx))
		<-ctx.Done()
		assert.ErrorIs(t, context.Cause(ctx), leader.ErrClosed)
		return nil
	})
	require.ErrorIs(t, err, leader.ErrClosed)
	assert.Empty(t, zktest.Children(t, zktest.Connect(t, servers), path))
}
