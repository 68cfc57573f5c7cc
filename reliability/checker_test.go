package reliability_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/reliability/internal/chaos"
)

// The chaos run's checker catches a real overlap: a holder partitioned
// from the server that is told of its loss too late (here its signal is
// held back by twice the session timeout, as a client without a session
// lease would be told only after its own timeout ran out while suspended)
// still holds when the server has expired its session and a waiter has
// acquired. With the lease the holder is told when the lease runs out,
// before; under the standard policy at the suspension; and the same faults
// leave no violation.
func TestChaos_CheckerCatchesTheSessionPolicyOverlap(t *testing.T) {
	t.Parallel() // each has servers of its own; most of its time is spent waiting
	const timeout = 3 * time.Second
	for _, tc := range []struct {
		name          string
		policy        framework.ErrorPolicy
		toldLate      bool
		wantViolation bool
	}{
		{"session policy, told late", framework.SessionErrorPolicy, true, true},
		{"session policy", framework.SessionErrorPolicy, false, false},
		{"standard policy", framework.StandardErrorPolicy, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := zktest.NewProxy(t, zktest.Servers(t))
			holderClient := zktest.Connect(t, proxy.Addr(), framework.WithSessionTimeout(timeout))
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
			if tc.toldLate {
				holder.Locker = lateLocker{Locker: holder.Locker, late: 2 * timeout}
			}
			waiter := worker(waiterClient, "waiter", 10*time.Millisecond)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var wg sync.WaitGroup
			defer wg.Wait()
			defer cancel()
			wg.Go(func() { holder.Run(ctx) }) // ends with ctx
			// Its Acquire has returned, not only made its node: a pause
			// before the listing's answer leaves nothing held to lose.
			require.Eventually(t, func() bool { return ledger.Holding("holder") }, 10*time.Second, 10*time.Millisecond)
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

// lateLocker is a Locker whose holds are told of their loss late.
type lateLocker struct {
	chaos.Locker
	late time.Duration
}

func (l lateLocker) Acquire(ctx context.Context) (chaos.Held, error) {
	h, err := l.Locker.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	lost, released := make(chan struct{}), make(chan struct{})
	go func() { // ends late after the hold's loss, or at its release
		select {
		case <-h.Lost():
			time.Sleep(l.late)
		case <-released:
		}
		close(lost)
	}()
	return &lateHeld{Held: h, lost: lost, released: released}, nil
}

// lateHeld is a hold whose Lost closes late.
type lateHeld struct {
	chaos.Held
	lost, released chan struct{}
	once           sync.Once
}

func (h *lateHeld) Lost() <-chan struct{} { return h.lost }

func (h *lateHeld) Release(ctx context.Context) error {
	h.once.Do(func() { close(h.released) })
	return h.Held.Release(ctx)
}
