package leader_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// The leader hears nothing for longer than its lease while the server
// still hears it (the session lives on): its function is cancelled; when
// the replies come back in the same session, the node must still keep the
// successor out until the function returns.
func TestSelector_LeaseLapseKeepsTheSuccessorOutUntilTheFunctionReturns(t *testing.T) {
	t.Parallel()
	servers := zktest.Servers(t)
	proxy := zktest.NewProxy(t, servers)
	ctx := zktest.Context(t)
	path := zktest.UniquePath(t)
	oc := zktest.Connect(t, servers)
	ac := zktest.Connect(t, proxy.Addr(), framework.WithSessionTimeout(2*time.Second))
	var aReturned atomic.Bool
	aLeads, aCancelled, unblock := make(chan *framework.Session, 1), make(chan struct{}), make(chan struct{})
	a := newSelector(t, ac, path, func(ctx context.Context) error {
		aLeads <- ac.Session()
		<-ctx.Done()
		close(aCancelled)
		<-unblock
		aReturned.Store(true)
		return nil
	}, leader.WithID("a"), leader.WithErrorPolicy(framework.SessionErrorPolicy))
	bStarted := make(chan bool, 1)
	b := newSelector(t, oc, path, func(context.Context) error { bStarted <- aReturned.Load(); return nil }, leader.WithID("b"))
	aRun := make(chan error, 1)
	go func() { aRun <- a.Run(ctx) }()
	session := <-aLeads
	go func() { _ = b.Run(ctx) }()
	require.Eventually(t, func() bool { return len(zktest.Children(t, oc, path)) == 2 },
		10*time.Second, 10*time.Millisecond, "the successor queues")
	proxy.PauseReplies()
	<-aCancelled
	require.True(t, session.LeaseRanOut())
	proxy.Resume()
	require.NoError(t, ac.WaitConnected(ctx))
	require.Equal(t, session, ac.Session(), "the session survived")
	assert.Never(t, func() bool { return len(bStarted) > 0 }, time.Second, 10*time.Millisecond,
		"the successor started while the function still ran")
	close(unblock)
	assert.True(t, <-bStarted, "the successor started before the function returned")
	<-aRun
}
