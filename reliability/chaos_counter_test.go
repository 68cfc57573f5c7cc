package reliability_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
	"github.com/zkrecipes/zkrecipes/reliability/internal/chaos"
)

// chaosCounter is one distributed atomic counter (recipes/atomicvalue's
// Long, Curator's DistributedAtomicLong) that every client increments
// under the faults; the odd clients' updates are promoted to a lock when
// their optimistic tries are beaten. At the end its value must lie
// between the increments believed applied and those plus the ones whose
// answer was lost.
type chaosCounter struct {
	path    string
	counter *chaos.Counter
	runners []runner
}

func startChaosCounter(t *testing.T, root string, clients []*framework.Client, stats *chaos.Stats) *chaosCounter {
	cc := &chaosCounter{path: root + "/counter", counter: &chaos.Counter{}}
	for i, c := range clients {
		var opts []atomicvalue.Option
		if i%2 == 1 {
			opts = append(opts, atomicvalue.WithPromotedToLock(atomicvalue.PromotedToLock{Path: root + "/counter-lock"}))
		}
		l, err := atomicvalue.NewLong(c, cc.path, opts...)
		require.NoError(t, err)
		cc.runners = append(cc.runners, &chaos.CounterIncrementer{Long: l, Counter: cc.counter, Stats: stats, Label: fmt.Sprintf("atomicvalue go-%d", i)})
	}
	return cc
}

// judge reads the counter's final value and adds the counts and any
// violation to the report.
func (cc *chaosCounter) judge(t *testing.T, observer *framework.Client, ledger *chaos.Ledger, report *chaos.Report) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := atomicvalue.NewLong(observer, cc.path)
	require.NoError(t, err)
	final, err := l.Get(ctx)
	require.NoError(t, err)
	report.Counter = cc.counter.Counts()
	report.Counter["final"] = int(final.PreValue)
	report.Violations = append(report.Violations, cc.counter.Check(ledger.Clock().Now(), final.PreValue)...)
}
