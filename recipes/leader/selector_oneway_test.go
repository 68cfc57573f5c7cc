package leader_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
)

// In a one-way partition the leader's requests no longer reach the server
// while notifications still reach it, so its connection never looks
// broken; the server expires its session and the successor leads. The
// session lease cancels the leader's function first, under both error
// policies.
func TestSelector_OneWayPartitionCancelsTheFunctionBeforeTheSuccessorLeads(t *testing.T) {
	for _, policy := range []framework.ErrorPolicy{framework.StandardErrorPolicy, framework.SessionErrorPolicy} {
		t.Run(policy.String(), func(t *testing.T) {
			servers := zktest.Servers(t)
			proxy := zktest.NewProxy(t, servers)
			lc := zktest.Connect(t, proxy.Addr(), framework.WithSessionTimeout(2*time.Second))
			other := zktest.Connect(t, servers)
			ctx := zktest.Context(t)
			path := zktest.UniquePath(t)
			notified := watchBeacons(ctx, t, lc, other, path+"-beacons")
			a := newSelector(t, lc, path, leader.WithID("partitioned"), leader.WithErrorPolicy(policy))
			b := newSelector(t, other, path, leader.WithID("successor"), leader.WithErrorPolicy(policy))
			told, succeeded := make(chan time.Time, 1), make(chan time.Time, 1)
			aLeads := make(chan struct{})
			// Each ends when its term ends.
			go func() {
				_ = a.Run(ctx, func(ctx context.Context) error {
					close(aLeads)
					<-ctx.Done()
					told <- time.Now()
					assert.ErrorIs(t, context.Cause(ctx), leader.ErrLost)
					return nil
				})
			}()
			<-aLeads
			go func() {
				_ = b.Run(ctx, func(context.Context) error {
					succeeded <- time.Now()
					return nil
				})
			}()
			require.Eventually(t, func() bool { return len(zktest.Children(t, other, path)) == 2 },
				10*time.Second, 10*time.Millisecond, "the successor queues")

			proxy.PauseRequests()
			stop := setBeacons(ctx, other, path+"-beacons")
			defer stop()
			var at time.Time
			select {
			case at = <-told:
			case s := <-succeeded:
				t.Fatalf("the successor led at %v while the function ran on", s.Format(time.StampMicro))
			case <-time.After(30 * time.Second):
				t.Fatal("the function was never cancelled")
			}
			assert.Positive(t, notified.Load(), "notifications reached the leader during the partition")
			select {
			case s := <-succeeded:
				require.True(t, at.Before(s), "cancelled at %v, successor led at %v", at, s)
				t.Logf("%s policy: the function was cancelled %v before the successor led", policy, s.Sub(at))
			case <-time.After(30 * time.Second):
				t.Fatal("the successor never led")
			}
		})
	}
}

// beacons is how many nodes the leader watches: the other client sets one
// every beaconEvery, so that notifications reach the leader for longer
// than its session lasts, though it can set no new watch.
const (
	beacons     = 200
	beaconEvery = 20 * time.Millisecond
)

// watchBeacons creates the beacons under dir and watches each through c;
// it counts the notifications until ctx ends.
func watchBeacons(ctx context.Context, t *testing.T, c, other *framework.Client, dir string) *atomic.Int64 {
	var n atomic.Int64
	for i := range beacons {
		p := fmt.Sprintf("%s/%d", dir, i)
		_, err := other.Create(ctx, p, nil, framework.Persistent, framework.WithParents())
		require.NoError(t, err)
		_, _, watch, err := c.GetW(ctx, p)
		require.NoError(t, err)
		// Ends with the notification or ctx.
		go func() {
			select {
			case <-watch:
				n.Add(1)
			case <-ctx.Done():
			}
		}()
	}
	return &n
}

// setBeacons writes one beacon under dir every beaconEvery, each once,
// until stopped.
func setBeacons(ctx context.Context, c *framework.Client, dir string) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	// Ends with stop, ctx or the last beacon.
	go func() {
		defer close(done)
		tick := time.NewTicker(beaconEvery)
		defer tick.Stop()
		for i := range beacons {
			select {
			case <-tick.C:
				_, _ = c.Set(ctx, fmt.Sprintf("%s/%d", dir, i), nil, -1)
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() { cancel(); <-done }
}
