package framework_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
)

// endOnUnconnected ends a context when a try fails for want of a
// connection, between the try and the retry loop's look at the context.
type endOnUnconnected struct {
	framework.NoopObserver
	end func()
}

func (o endOnUnconnected) OnRequest(e framework.RequestEvent) {
	if errors.Is(e.Err, framework.ErrNotConnected) {
		o.end()
	}
}

// A call whose context ends as a try fails for want of a connection ends
// for its context's sake, and says so, with why the try failed: a caller
// that asks whether its time ran out (a recipe's timed acquire, which then
// says ErrUnreachable) learns that it did. Under load the connection
// timeout and a deadline of about the same length end together, and the
// call said only ErrNotConnected.
func TestRetry_ACallWhoseContextEndsAsATryFailsSaysSo(t *testing.T) {
	proxy := zktest.NewProxy(t, zktest.Servers(t))
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	// Untracked: the observer ends ctx at any try that finds no
	// connection, and a read of the ensemble tracker's must not be one.
	c := connect(t, proxy.Addr(), framework.WithConnectionTimeout(100*time.Millisecond),
		framework.WithObserver(endOnUnconnected{end: cancel}), framework.WithoutEnsembleTracking())
	proxy.Close()
	require.Eventually(t, func() bool { return !c.IsConnected() }, 10*time.Second, 5*time.Millisecond)

	_, _, err := c.Get(ctx, "/")
	require.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, err, framework.ErrNotConnected, "why the last try failed")
}
