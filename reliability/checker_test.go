package reliability_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/reliability/internal/chaos"
)

// The chaos run's checker catches a real overlap: under the session error
// policy a holder that keeps no session lease (its client dialed through
// a dialer of the caller's own) and is partitioned from the server is told
// of its loss only when its own session timeout has run out while
// suspended, after the server has expired the session and a waiter has
// acquired. With the lease the holder is told when the lease runs out,
// before; under the standard policy at the suspension; and the same faults
// leave no violation.
func TestChaos_CheckerCatchesTheSessionPolicyOverlap(t *testing.T) {
	ownDialer := framework.WithZKOptions(zk.WithDialer(func(network, address string, timeout time.Duration) (net.Conn, error) {
		return net.DialTimeout(network, address, timeout)
	}))
	for _, tc := range []struct {
		name          string
		policy        framework.ErrorPolicy
		leaseless     bool
		wantViolation bool
	}{
		{"session policy without a lease", framework.SessionErrorPolicy, true, true},
		{"session policy", framework.SessionErrorPolicy, false, false},
		{"standard policy", framework.StandardErrorPolicy, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := zktest.NewProxy(t, zktest.Servers(t))
			opts := []framework.Option{framework.WithSessionTimeout(3 * time.Second)}
			if tc.leaseless {
				opts = append(opts, ownDialer)
			}
			holderClient := zktest.Connect(t, proxy.Addr(), opts...)
			waiterClient := zktest.Connect(t, zktest.Servers(t))
			path := zktest.UniquePath(t)
			ledger, stats := chaos.NewLedger(), chaos.NewStats()
			recipe := chaos.Mutex{Policy: tc.policy}
			worker := func(c *framework.Client, holder string, holdFor time.Duration) *chaos.Worker {
				l, err := recipe.New(c, 0, path)
				require.NoError(t, err)
				return &chaos.Worker{Recipe: "mutex", Holder: holder, Locker: l, Ledger: ledger, Stats: stats, HoldFor: holdFor}
			}
			holder := worker(holderClient, "holder", time.Minute)
			waiter := worker(waiterClient, "waiter", 10*time.Millisecond)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var wg sync.WaitGroup
			defer wg.Wait()
			defer cancel()
			wg.Go(func() { holder.Run(ctx) }) // ends with ctx
			require.Eventually(t, func() bool { return len(zktest.Children(t, waiterClient, path)) == 1 }, 10*time.Second, 10*time.Millisecond)
			wg.Go(func() { waiter.Run(ctx) }) // ends with ctx
			require.Eventually(t, func() bool { return len(zktest.Children(t, waiterClient, path)) == 2 }, 10*time.Second, 10*time.Millisecond)

			proxy.Pause()
			require.Eventually(t, func() bool {
				var held, lost bool
				for _, h := range ledger.Holds() {
					held = held || h.Holder == "waiter"
					lost = lost || h.Holder == "holder" && h.Lost
				}
				return held && lost
			}, 30*time.Second, 10*time.Millisecond, "the holder is told of its loss and the waiter acquires")
			proxy.Resume()
			cancel()
			wg.Wait()

			violations := ledger.Check()
			if !tc.wantViolation {
				assert.Empty(t, violations)
				return
			}
			require.NotEmpty(t, violations, "holds: %+v", ledger.Holds())
			assert.Equal(t, "overlap", violations[0].Kind)
			assert.Equal(t, "holder", violations[0].Holds[0].Holder)
			assert.Equal(t, "waiter", violations[0].Holds[1].Holder)
		})
	}
}
