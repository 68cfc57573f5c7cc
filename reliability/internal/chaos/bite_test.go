package chaos

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestInterrupted_CountsHoldsLostWhileInForce(t *testing.T) {
	holds := []Hold{
		hold("r", "a", 0, 10, true, 1), // released
		{Recipe: "r", Holder: "b", Acquired: at(10), End: at(20), Lost: true},
		{Recipe: "r", Holder: "c", Acquired: at(30), End: at(30), Lost: true}, // lost on arrival: never held
		{Recipe: "r", Holder: "d", Acquired: at(40), End: at(41), Lost: true},
	}
	assert.Equal(t, 2, Interrupted(holds))
	assert.Zero(t, Interrupted(nil))
}

func TestExpiredUnderHolder_CountsPartitionsThatBeganWhileTheClientHeld(t *testing.T) {
	holds := []Hold{
		hold("mutex", "go-1", 0, 100, true, 1),
		hold("rwlock", "go-2/downgrade", 200, 300, true, 2),
		hold("mutex", "go-10", 400, 500, true, 3), // not go-1's
	}
	for _, tc := range []struct {
		name     string
		expiries []Expiry
		want     int
	}{
		{"none", nil, 0},
		{"while go-1 held", []Expiry{{Holder: "go-1", From: at(50), To: at(9000)}}, 1},
		{"at the very instant go-1 acquired", []Expiry{{Holder: "go-1", From: at(0), To: at(9000)}}, 1},
		{"as go-1 released", []Expiry{{Holder: "go-1", From: at(100), To: at(9000)}}, 0},
		{"while a part of go-2 held", []Expiry{{Holder: "go-2", From: at(250), To: at(9000)}}, 1},
		{"go-1 is not go-10", []Expiry{{Holder: "go-1", From: at(450), To: at(9000)}}, 0},
		{"a partition of an unnamed client", []Expiry{{From: at(50), To: at(9000)}}, 0},
		{"each partition once", []Expiry{
			{Holder: "go-1", From: at(10), To: at(20)}, {Holder: "go-1", From: at(60), To: at(70)},
			{Holder: "go-2", From: at(10), To: at(20)},
		}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ExpiredUnderHolder(holds, tc.expiries))
		})
	}
}

func TestReport_FailsALongRunWhoseFaultsDidNotBite(t *testing.T) {
	bitten := func(d time.Duration) *Report {
		r := NewReport(d, 1, 5)
		r.HoldsInterrupted, r.RepliesDropped, r.ExpiredUnderHolder = 3, 2, 1
		r.GrantsShrunk, r.Jobs = 1, map[string]int{jobUnknown: 1}
		r.Counter, r.DoubleBarrier = map[string]int{incrementUnknown: 1}, map[string]int{"rounds_broken": 1}
		r.LockSafeQueue, r.TxQueue = map[string]int{"puts_answer_lost": 1}, map[string]int{"closings_failed": 1}
		return r
	}
	for _, tc := range []struct {
		name  string
		d     time.Duration
		spoil func(r *Report)
		want  []string
	}{
		{"every fault bit", 2 * time.Minute, func(*Report) {}, nil},
		{"no hold interrupted", 2 * time.Minute, func(r *Report) { r.HoldsInterrupted = 0 },
			[]string{"no fault interrupted a hold in 2m0s"}},
		{"no answer dropped", 30 * time.Minute, func(r *Report) { r.RepliesDropped = 0 },
			[]string{"no answer was dropped in 30m0s"}},
		{"no grant shrunk in a long run", 30 * time.Minute, func(r *Report) { r.GrantsShrunk = 0 },
			[]string{"no session resumed under a shorter grant in 30m0s"}},
		{"no enqueue's answer lost in a long run", 30 * time.Minute, func(r *Report) { r.Jobs = nil },
			[]string{"no guarded enqueue lost its answer in 30m0s"}},
		{"no counter increment's answer lost in a long run", 30 * time.Minute, func(r *Report) { r.Counter = nil },
			[]string{"no counter increment lost its answer in 30m0s"}},
		{"no double-barrier round broken in a long run", 30 * time.Minute, func(r *Report) { r.DoubleBarrier["rounds_broken"] = 0 },
			[]string{"no double-barrier round was broken in 30m0s"}},
		{"no queue put's answer lost in a long run", 30 * time.Minute, func(r *Report) { r.LockSafeQueue = nil },
			[]string{"no queue put lost its answer in 30m0s"}},
		{"no queue item given back by a fault in a long run", 30 * time.Minute, func(r *Report) { r.TxQueue = nil },
			[]string{"no queue item was given back by a fault in 30m0s"}},
		{"a queue item's lock lost mid-item is given back by a fault", 30 * time.Minute, func(r *Report) {
			r.TxQueue = map[string]int{"runs_abandoned": 1}
		}, nil},
		{"a short run need not prove the rare ones", 2 * time.Minute, func(r *Report) {
			r.GrantsShrunk, r.Jobs, r.Counter, r.DoubleBarrier, r.LockSafeQueue, r.TxQueue = 0, nil, nil, nil, nil, nil
		}, nil},
		{"no session expired under a holder", 2 * time.Minute, func(r *Report) { r.ExpiredUnderHolder = 0 },
			[]string{"no session expired under a holder in 2m0s"}},
		{"nothing bit", 2 * time.Minute, func(r *Report) { *r = *NewReport(2*time.Minute, 1, 5) }, []string{
			"no fault interrupted a hold in 2m0s", "no answer was dropped in 2m0s", "no session expired under a holder in 2m0s",
		}},
		{"a short run need not prove it", 119 * time.Second, func(r *Report) { *r = *NewReport(119*time.Second, 1, 5) }, nil},
		{"a violation fails any run", 10 * time.Second, func(r *Report) { r.Violations = append(r.Violations, Violation{Kind: "count"}) },
			[]string{"1 violations"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := bitten(tc.d)
			tc.spoil(r)
			assert.Equal(t, tc.want, r.Problems())
			assert.Equal(t, len(tc.want) > 0, r.Failed())
		})
	}
}

func TestLedger_TellsWhichClientHoldsNow(t *testing.T) {
	l := NewLedger()
	assert.False(t, l.Holding("go-1"))
	l.Begin("go-1/downgrade")
	l.Begin("go-1/downgrade")
	assert.True(t, l.Holding("go-1"))
	assert.False(t, l.Holding("go-10"), "go-10 is another client")
	l.Done("go-1/downgrade")
	assert.True(t, l.Holding("go-1"), "one of its two holds is still in force")
	l.Done("go-1/downgrade")
	assert.False(t, l.Holding("go-1"))
}

func TestSchedule_PartitionsAClientThatHolds(t *testing.T) {
	holding := map[string]bool{"go-2": true}
	s := &Schedule{
		Links: make([][]Link, 4), Holders: []string{"go-0", "go-1", "go-2", "go-3"},
		Holding: func(c string) bool { return holding[c] },
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 10 {
		assert.Equal(t, 2, s.pickHolder(t.Context(), 0, rnd))
	}
	holding = map[string]bool{}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.Equal(t, 3, s.pickHolder(ctx, 3, rnd), "nobody holds: the client drawn")
}
