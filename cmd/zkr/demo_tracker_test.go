package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The demo's checks can fail: the tracker counts a hold its recipe's rule
// forbids, and a token below one it must follow.
func TestTracker_CountsViolationsAndTokensOutOfOrder(t *testing.T) {
	cfg := demoConfig{workers: 5, leases: 2}
	hold := func(tr *tracker, id int, kind *demoKind, token int64) {
		tr.hold(id, 0, demoHold{kind: kind, token: token})
	}
	end := func(tr *tracker, id int) { tr.update(func() { tr.endLocked(id) }) }

	m := mutexRecipe(cfg)
	tr := newTracker(m, 10, io.Discard)
	mu := m.kinds[0]
	hold(tr, 1, mu, 10)
	hold(tr, 2, mu, 11) // while 1 holds
	end(tr, 1)
	end(tr, 2)
	hold(tr, 3, mu, 9) // below two ended holds
	assert.Equal(t, kindStats{acquired: 3, peak: 2, violations: 1, tokens: 3, outOfOrder: 1}, withoutWaits(tr.stats[mu]))

	s := semaphoreRecipe(cfg)
	tr = newTracker(s, 10, io.Discard)
	lease := s.kinds[0]
	hold(tr, 1, lease, 10)
	hold(tr, 2, lease, 12)
	end(tr, 2)
	hold(tr, 3, lease, 11) // below the released 12, while 10 still holds
	hold(tr, 4, lease, 13) // a third lease of two
	assert.Equal(t, kindStats{acquired: 4, peak: 3, violations: 1, tokens: 4, outOfOrder: 1}, withoutWaits(tr.stats[lease]))

	rw := rwlockRecipe(cfg)
	tr = newTracker(rw, 10, io.Discard)
	read, write := rw.kinds[0], rw.kinds[1]
	hold(tr, 1, read, 20)
	hold(tr, 2, read, 21)
	end(tr, 2)
	hold(tr, 3, read, 19)  // readers share: no order among them
	hold(tr, 4, write, 30) // while readers hold
	end(tr, 1)
	end(tr, 3)
	end(tr, 4)
	hold(tr, 5, read, 25)  // below the writer that ended
	hold(tr, 1, write, 22) // below a reader that ended, while a reader holds
	assert.Equal(t, kindStats{acquired: 4, peak: 2, tokens: 4, outOfOrder: 1}, withoutWaits(tr.stats[read]))
	assert.Equal(t, kindStats{acquired: 2, peak: 1, violations: 2, tokens: 2, outOfOrder: 1}, withoutWaits(tr.stats[write]))
}

// withoutWaits returns s without its waits, for comparison.
func withoutWaits(s *kindStats) kindStats {
	c := *s
	c.waits = nil
	return c
}
