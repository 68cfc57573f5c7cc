package chaos

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

func TestCheckLockSafe_EveryItemTakenAtLeastOnceAndClosedOnceAtMost(t *testing.T) {
	done := RunView{Outcome: runDone}
	doneLost := RunView{Outcome: runDone, SessionLost: true}
	doneNotClosed := RunView{Outcome: runDone, NotClosed: true}
	abandoned := RunView{Outcome: runAbandoned, SessionLost: true}
	failed := RunView{Outcome: runFailed}
	tests := []struct {
		name      string
		puts      map[string]string
		runs      map[string][]RunView
		violation bool
	}{
		{"taken once", map[string]string{"a": putApplied}, map[string][]RunView{"a": {done}}, false},
		{"applied and never taken", map[string]string{"a": putApplied}, nil, true},
		{"applied and only abandoned", map[string]string{"a": putApplied}, map[string][]RunView{"a": {abandoned}}, true},
		{"given back on error, then taken", map[string]string{"a": putApplied}, map[string][]RunView{"a": {failed, done}}, false},
		{"its lock lost mid-item, then taken", map[string]string{"a": putApplied}, map[string][]RunView{"a": {abandoned, done}}, false},
		{"taken in a session lost before it closed, then again", map[string]string{"a": putApplied}, map[string][]RunView{"a": {doneLost, done}}, false},
		{"its closing failed, then taken again", map[string]string{"a": putApplied}, map[string][]RunView{"a": {doneNotClosed, done}}, false},
		{"taken twice with nothing to excuse it", map[string]string{"a": putApplied}, map[string][]RunView{"a": {done, done}}, true},
		{"a put that failed, run", map[string]string{"a": putFailed}, map[string][]RunView{"a": {failed}}, true},
		{"a put that failed, never run", map[string]string{"a": putFailed}, nil, false},
		{"an unknown put, never run", map[string]string{"a": putUnknown}, nil, false},
		{"an unknown put, taken", map[string]string{"a": putUnknown}, map[string][]RunView{"a": {done}}, false},
		{"an unknown put, taken twice", map[string]string{"a": putUnknown}, map[string][]RunView{"a": {done, done}}, true},
		{"an item nobody put", map[string]string{"a": putApplied}, map[string][]RunView{"a": {done}, "b": {done}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := CheckLockSafe(tt.puts, tt.runs)
			assert.Equal(t, tt.violation, len(v) > 0, "%v", v)
		})
	}
}

func TestCheckExactlyOnce_AnAppliedPutHasOneEffect(t *testing.T) {
	tests := []struct {
		name      string
		puts      map[string]string
		effects   map[string]int
		violation bool
	}{
		{"one effect", map[string]string{"a": putApplied}, map[string]int{"a": 1}, false},
		{"applied, no effect", map[string]string{"a": putApplied}, nil, true},
		{"applied, two effects", map[string]string{"a": putApplied}, map[string]int{"a": 2}, true},
		{"unknown, none", map[string]string{"a": putUnknown}, nil, false},
		{"unknown, one", map[string]string{"a": putUnknown}, map[string]int{"a": 1}, false},
		{"unknown, two", map[string]string{"a": putUnknown}, map[string]int{"a": 2}, true},
		{"failed, one", map[string]string{"a": putFailed}, map[string]int{"a": 1}, true},
		{"failed, none", map[string]string{"a": putFailed}, nil, false},
		{"an effect nobody put", nil, map[string]int{"b": 1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := CheckExactlyOnce(tt.puts, tt.effects)
			assert.Equal(t, tt.violation, len(v) > 0, "%v", v)
		})
	}
}

func TestQueueLedger_CountsPutsRunsAndTheItemsGivenBack(t *testing.T) {
	l := &QueueLedger{Name: "q", Clock: NewClock()}
	l.put("a", nil, true)
	l.put("b", queue.ErrOutcomeUnknown, true)
	l.put("c", errors.New("connection lost"), false)
	for _, outcome := range []string{runFailed, runAbandoned, runDone, runDone} {
		l.end(l.begin("a", "c1", nil), outcome)
	}
	l.notTaken("c1") // after a's last run
	l.end(l.begin("b", "c2", nil), runStopped)
	assert.Equal(t, map[string]int{
		"puts_applied": 1, "puts_unknown": 1, "puts_failed": 1, "puts_answer_lost": 2,
		"runs_done": 2, "runs_abandoned": 1, "runs_stopped": 1, "given_back_on_error": 1,
		"items_consumed": 1, "consumed_again": 1, "closings_failed": 1,
	}, l.Counts())
	assert.Empty(t, l.Check(at(0)), "a's runs: its session is nil, counted as lost")
}
