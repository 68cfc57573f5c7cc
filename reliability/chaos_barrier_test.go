package reliability_test

import (
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/reliability/internal/chaos"
)

// chaosBarrierMembers is the number of members of each double-barrier
// round, each on another client.
const chaosBarrierMembers = 3

// startChaosBarrier returns rounds of a double barrier (recipes/barrier's
// Double, Curator's DistributedDoubleBarrier) among the clients, taken
// chaosBarrierMembers at a time in turn.
func startChaosBarrier(root string, clients []*framework.Client, ledger *chaos.Ledger, stats *chaos.Stats, seed uint64) *chaos.DoubleRounds {
	return &chaos.DoubleRounds{
		Clients: clients, Members: chaosBarrierMembers, Dir: root + "/double-barrier",
		Clock: ledger.Clock(), Stats: stats, Seed: seed + 900,
	}
}

// judgeChaosBarrier adds the rounds' counts and any violation to the
// report.
func judgeChaosBarrier(rounds *chaos.DoubleRounds, report *chaos.Report) {
	report.DoubleBarrier = rounds.Counts()
	report.Violations = append(report.Violations, rounds.Check()...)
}
