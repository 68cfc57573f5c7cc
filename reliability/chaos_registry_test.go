package reliability_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
	"github.com/zkrecipes/zkrecipes/recipes/discovery"
	"github.com/zkrecipes/zkrecipes/recipes/node"
	"github.com/zkrecipes/zkrecipes/reliability/internal/chaos"
)

// chaosRegistry is a service instance registered (recipes/discovery, on
// recipes/node) by every client the faults hit, followed by the observer
// through a cache: each instance must be registered once the faults are
// over, and never twice; and each create again must come within
// chaosRegisteredAgainBound of its client's last (re)connect. No library
// can register while its process cannot reach a server, so the issue's
// bound on a missing instance (a session timeout and a round trip) is
// counted from the moment the process can.
type chaosRegistry struct {
	base string
	regs []*discovery.Registration[map[string]any]
	seen *cache.Cache

	mu       sync.Mutex
	goneAt   map[string]time.Time
	longest  time.Duration // the longest an instance was missing, as the observer saw it
	back     int           // registrations made again, as the observer saw them
	connects [][]time.Time // per client: when it became connected
	slowest  time.Duration // the longest from a connect to the create again after it
	late     []string      // creates again that took longer than the bound
}

// chaosRegisteredAgainBound bounds the time from a client's connect to
// the create again of its instance: a session timeout and a round trip
// (the slow fault's delay both ways, under the race detector).
const chaosRegisteredAgainBound = chaosSessionTimeout + time.Second

func startChaosRegistry(t *testing.T, root string, clients []*framework.Client, observer *framework.Client) *chaosRegistry {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := &chaosRegistry{base: root + "/services", goneAt: make(map[string]time.Time), connects: make([][]time.Time, len(clients))}
	seen, err := cache.New(observer, r.base+"/chaos", cache.WithMaxDepth(1))
	require.NoError(t, err)
	seen.AddListener(r.hear)
	require.NoError(t, seen.Start(context.Background()))
	r.seen = seen
	for i, c := range clients {
		d, err := discovery.New[map[string]any](c, r.base)
		require.NoError(t, err)
		reg, err := d.Register(ctx, discovery.Instance[map[string]any]{Name: "chaos", ID: fmt.Sprintf("go-%d", i)})
		require.NoError(t, err)
		r.regs = append(r.regs, reg)
		c.AddListener(func(sc framework.StateChange) {
			if sc.State == framework.Connected || sc.State == framework.Reconnected {
				r.mu.Lock()
				r.connects[i] = append(r.connects[i], sc.At)
				r.mu.Unlock()
			}
		})
		reg.AddListener(func(ev node.Event) {
			if ev.Type == node.Created {
				r.createdAgain(i, time.Now())
			}
		})
	}
	return r
}

// createdAgain checks that client i's instance, created again at at, was
// created within the bound of the client's last connect.
func (r *chaosRegistry) createdAgain(i int, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cs := r.connects[i]
	if len(cs) == 0 {
		return // its first session's create was Register's
	}
	took := at.Sub(cs[len(cs)-1])
	r.slowest = max(r.slowest, took)
	if took > chaosRegisteredAgainBound {
		r.late = append(r.late, fmt.Sprintf("registry: go-%d created again %v after its client connected, more than %v", i, took.Round(time.Millisecond), chaosRegisteredAgainBound))
	}
}

// hear times the gaps of each instance, as the observer sees them.
func (r *chaosRegistry) hear(ev cache.Event) {
	if ev.Path == r.base+"/chaos" || ev.Type == cache.Initialized {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev.Type {
	case cache.Deleted:
		r.goneAt[ev.Path] = time.Now()
	case cache.Created:
		if at, ok := r.goneAt[ev.Path]; ok {
			r.longest = max(r.longest, time.Since(at))
			r.back++
			delete(r.goneAt, ev.Path)
		}
	}
}

// judge waits for every instance to be registered, once, records the
// figures, and unregisters them.
func (r *chaosRegistry) judge(t *testing.T, observer *framework.Client, report *chaos.Report) {
	want := len(r.regs)
	var ids []string
	deadline := time.Now().Add(settleTimeout)
	for time.Now().Before(deadline) {
		var err error
		ids, _, err = observer.Children(context.Background(), r.base+"/chaos")
		if err == nil && len(ids) == want {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(ids) != want {
		report.StateProblems = append(report.StateProblems, fmt.Sprintf("registry: %d instances registered once the faults were over, want %d: %v", len(ids), want, ids))
	}
	r.mu.Lock()
	report.Registry = map[string]int{"instances": want, "registered_again": r.back, "longest_missing_ms": int(r.longest.Milliseconds()),
		"longest_from_connect_to_create_ms": int(r.slowest.Milliseconds())}
	report.StateProblems = append(report.StateProblems, r.late...)
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, reg := range r.regs {
		if err := reg.Close(ctx); err != nil {
			report.StateProblems = append(report.StateProblems, fmt.Sprintf("registry: unregister %s: %v", reg.Node(), err))
		}
	}
	_ = r.seen.Close(ctx)
	_ = observer.Delete(ctx, r.base+"/chaos", -1)
	_ = observer.Delete(ctx, r.base, -1)
}
