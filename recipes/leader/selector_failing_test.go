package leader_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// A function that keeps failing at once under WithAutoRequeue does not
// flap leadership: Run backs off before it queues again, and a healthy
// participant leads meanwhile (issue 28: three terms a second before).
func TestSelector_AFunctionThatKeepsFailingBacksOff(t *testing.T) {
	t.Parallel()
	servers := zktest.Servers(t)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	var failures atomic.Int32
	failing := newSelector(t, zktest.Connect(t, servers), path, func(context.Context) error {
		failures.Add(1)
		return errors.New("misconfigured")
	}, leader.WithID("failing"), leader.WithAutoRequeue())
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- failing.Run(runCtx) }() // ends with stop
	require.Eventually(t, func() bool { return failures.Load() >= 1 }, 10*time.Second, 5*time.Millisecond)
	time.Sleep(4 * time.Second)
	n := failures.Load()
	assert.LessOrEqual(t, n, int32(6), "terms of a failing function in about 4 s")
	assert.GreaterOrEqual(t, n, int32(2), "it still queues again")

	// While it waits, another participant leads.
	led := make(chan struct{})
	healthy := newSelector(t, zktest.Connect(t, servers), path,
		func(context.Context) error { close(led); return nil }, leader.WithID("healthy"))
	go func() { _ = healthy.Run(ctx) }() // ends when its function returns
	select {
	case <-led:
	case <-time.After(30 * time.Second):
		t.Fatal("the healthy participant never led")
	}
	stop()
	require.ErrorIs(t, <-ran, context.Canceled)
}

// One rule for the term inside the function: when its ctx is cancelled,
// the term has ended and its Err says why, whatever the cause: a Close,
// the end of Run's ctx, or a loss.
func TestSelector_TheTermSaysWhyTheFunctionsCtxEnded(t *testing.T) {
	servers := zktest.Servers(t)
	for _, tc := range []struct {
		name string
		stop func(s *leader.Selector, cancel context.CancelFunc)
		want error
	}{
		{"close", func(s *leader.Selector, _ context.CancelFunc) { _ = s.Close(context.Background()) }, leader.ErrClosed},
		{"run's ctx", func(_ *leader.Selector, cancel context.CancelFunc) { cancel() }, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(zktest.Context(t))
			defer cancel()
			seen := make(chan error, 1)
			entered := make(chan struct{})
			s := newSelector(t, zktest.Connect(t, servers), zktest.UniquePath(t), func(fctx context.Context) error {
				close(entered)
				<-fctx.Done()
				term, _ := leader.LeadershipFrom(fctx)
				seen <- term.Err()
				return nil
			})
			go func() { _ = s.Run(ctx) }() // ends when the function returns
			<-entered
			tc.stop(s, cancel)
			err := <-seen
			require.ErrorIs(t, err, tc.want)
		})
	}
}
