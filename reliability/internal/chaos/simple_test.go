package chaos

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

func TestCheckAtMostOnce_NoItemTwiceAndOnlyDroppedItemsMissing(t *testing.T) {
	tests := []struct {
		name      string
		offers    map[string]string
		takes     map[string]int
		dropped   int
		violation bool
	}{
		{"taken once", map[string]string{"a": putApplied}, map[string]int{"a": 1}, 0, false},
		{"taken twice", map[string]string{"a": putApplied}, map[string]int{"a": 2}, 0, true},
		{"applied, never taken", map[string]string{"a": putApplied}, nil, 0, true},
		{"applied, dropped by a lost delete", map[string]string{"a": putApplied}, nil, 1, false},
		{"two missing, one dropped", map[string]string{"a": putApplied, "b": putApplied}, nil, 1, true},
		{"unknown, never taken", map[string]string{"a": putUnknown}, nil, 0, false},
		{"unknown, taken", map[string]string{"a": putUnknown}, map[string]int{"a": 1}, 0, false},
		{"failed, taken", map[string]string{"a": putFailed}, map[string]int{"a": 1}, 0, true},
		{"taken, never offered", nil, map[string]int{"b": 1}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := CheckAtMostOnce(tt.offers, tt.takes, tt.dropped)
			assert.Equal(t, tt.violation, len(v) > 0, "%v", v)
		})
	}
}

func TestSimpleLedger_CountsOffersTakesAndDrops(t *testing.T) {
	l := &SimpleLedger{Name: "simple queue", Clock: NewClock()}
	l.offered("a", nil)
	l.offered("b", queue.ErrOutcomeUnknown)
	l.offered("c", errors.New("connection lost"))
	l.offered("d", nil)
	l.took("a", false)
	l.took("", true)
	assert.Equal(t, map[string]int{
		"offers_applied": 2, "offers_unknown": 1, "offers_failed": 1, "taken": 1, "dropped": 1, "taken_again": 0,
	}, l.Counts())
	assert.Empty(t, l.Check(at(0)), "d went with the lost delete")
	l.took("a", false)
	assert.Len(t, l.Check(at(0)), 1, "a taken twice")
}
