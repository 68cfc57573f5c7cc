package leader_test

// The README's quick start, as it runs: a service whose scheduler runs on
// one instance at a time, and its test.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/leader"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// runScheduler runs schedule while this instance leads the election, and
// again each time leadership comes back, until ctx ends.
func runScheduler(ctx context.Context, servers []string, id string, schedule func(context.Context) error) error {
	client, err := framework.Connect(ctx, servers)
	if err != nil {
		return err // errors.Is(err, framework.ErrUnreachable)
	}
	defer client.Close()
	sel, err := leader.NewSelector(client, "/services/scheduler/leader", schedule,
		leader.WithID(id), leader.WithAutoRequeue())
	if err != nil {
		return err
	}
	defer sel.Close(context.Background())
	// schedule's ctx ends the moment the term does: a suspended connection,
	// the session's lease run out, Close, or the end of ctx. Until schedule
	// returns, no other instance leads.
	return sel.Run(ctx)
}

func TestScheduler_RunsOnOneInstanceAtATime(t *testing.T) {
	zktest.Integration(t) // skipped under -short; not in the README's copy
	server := zktesting.NewServer(t)
	var mu sync.Mutex
	leaders := map[int]bool{} // the instances in schedule now
	overlaps := 0
	schedule := func(i int) func(context.Context) error {
		return func(ctx context.Context) error {
			mu.Lock()
			if len(leaders) > 0 {
				overlaps++
			}
			leaders[i] = true
			mu.Unlock()
			defer func() { mu.Lock(); delete(leaders, i); mu.Unlock() }()
			<-ctx.Done() // schedule until the term ends
			return nil
		}
	}
	leader := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		for i := range leaders {
			return i, true
		}
		return 0, false
	}

	stops := make([]context.CancelFunc, 3)
	done := make([]chan error, len(stops))
	for i := range stops {
		ctx, stop := context.WithCancel(t.Context())
		stops[i], done[i] = stop, make(chan error, 1)
		go func() { done[i] <- runScheduler(ctx, []string{server.Addr()}, fmt.Sprint("instance-", i), schedule(i)) }()
	}
	// Stop whichever instance leads: another takes over, until none is left.
	for range stops {
		var i int
		waitFor(t, func() (ok bool) { i, ok = leader(); return ok }, "an instance leads")
		stops[i]()
		if err := <-done[i]; !errors.Is(err, context.Canceled) {
			t.Fatalf("instance %d: %v", i, err)
		}
	}
	if overlaps > 0 {
		t.Fatalf("instances ran the scheduler at once %d times", overlaps)
	}
}

// waitFor polls cond for up to 30 s.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%s: not within 30 s", what)
		}
	}
}
