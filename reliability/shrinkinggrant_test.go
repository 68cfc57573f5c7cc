package reliability_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// Grants before and after a server's maxSessionTimeout is lowered.
const (
	grantBefore = 30 * time.Second
	grantAfter  = 4 * time.Second
)

// A session that lives through a server restarted with a lower
// maxSessionTimeout is granted the shorter timeout on its reconnect, and
// the server counts its expiry from then with it. A holder whose lease
// kept the old grant's deadline went on holding long after the server had
// expired its session and handed the hold on (issue 27, row 1: a latch
// still led 2.6 s after its successor began). The lease follows the grant
// in force, so the holder is told first, under both policies, also when
// its requests stop reaching the server and it sees no disconnect.
func TestShrinkingGrant_HolderIsToldBeforeTheNextHolderAcquires(t *testing.T) {
	t.Parallel() // each has servers of its own; most of its time is spent waiting
	kinds := map[string]bool{"mutex": true, "semaphore lease": true, "leader latch": true, "leader selector": true}
	for _, kind := range holdKinds {
		if !kinds[kind.name] {
			continue // the read/write lock is the mutex's engine; a TTL lease is bound to no session
		}
		for _, policy := range []framework.ErrorPolicy{framework.StandardErrorPolicy, framework.SessionErrorPolicy} {
			t.Run(kind.name+"/"+policy.String(), func(t *testing.T) {
				srv := zktest.NewServer(t, zktesting.WithMaxSessionTimeout(grantBefore))
				proxy := zktest.NewProxy(t, srv.Addr())
				holderClient := zktest.Connect(t, proxy.Addr(), framework.WithSessionTimeout(grantBefore))
				other := zktest.Connect(t, srv.Addr(), framework.WithSessionTimeout(grantBefore))
				session := holderClient.Session()
				require.Equal(t, grantBefore, holderClient.SessionTimeout())

				require.NoError(t, srv.SetMaxSessionTimeout(grantAfter))
				require.NoError(t, srv.Restart(zktest.Context(t)))
				require.Eventually(t, func() bool {
					return holderClient.State() == framework.Reconnected && holderClient.SessionTimeout() == grantAfter
				}, 30*time.Second, 10*time.Millisecond, "the holder reconnects under the new grant")
				require.Same(t, session, holderClient.Session(), "the session lived through the restart")

				holdThroughOneWayPartition(t, kind, policy, proxy, holderClient, other)
			})
		}
	}
}
