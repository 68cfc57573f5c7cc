package chaos

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

// The outcomes of a put, as its producer saw them.
const (
	putApplied = "applied" // nil: the item is in the queue once
	putUnknown = "unknown" // ErrOutcomeUnknown: once or not at all
	putFailed  = "failed"  // any other error: not at all
)

// The outcomes of one run of a consumer's function on an item.
const (
	runDone      = "done"      // it returned nil (a transactional one: its operations)
	runAbandoned = "abandoned" // its ctx ended mid-item while the run went on: the lock's session was lost
	runStopped   = "stopped"   // its ctx ended as the consumer stopped
	runFailed    = "failed"    // it failed on purpose: the item is given back (Requeue)
)

// QueueLedger is the ledger of one queue (recipes/queue) under the faults:
// the outcome of every put of an item, whether a try of the put lost its
// answer, and every run of a consumer's function on an item, with the
// session it began in and whether the consumer said afterwards that it
// did not take the item (its closing transaction failed: the item is
// given back). Every item is put once, under a name of its own. It is
// safe for concurrent use.
type QueueLedger struct {
	Name  string // the queue, in violations: "lock-safe queue", "transactional queue"
	Clock *Clock

	mu       sync.Mutex
	puts     map[string]string // item → outcome
	putsLost int               // puts a try of which lost its answer
	runs     map[string][]*queueRun
	last     map[string]*queueRun // consumer → its latest run
}

// queueRun is one run of a consumer's function on an item.
type queueRun struct {
	consumer string
	session  *framework.Session // the consumer's client's, as the run began; nil: none
	outcome  string             // "" while it runs
	// notClosed: the consumer said that it did not take the item after
	// this run (a failed closing transaction).
	notClosed bool
}

// putOutcome is what a put's (or an offer's) error says of it.
func putOutcome(err error) string {
	switch {
	case errors.Is(err, queue.ErrOutcomeUnknown):
		return putUnknown
	case err != nil:
		return putFailed
	}
	return putApplied
}

// put records the outcome of the put of item; lost says a try of it lost
// its answer.
func (l *QueueLedger) put(item string, err error, lost bool) {
	outcome := putOutcome(err)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.puts == nil {
		l.puts = make(map[string]string)
	}
	l.puts[item] = outcome
	if lost {
		l.putsLost++
	}
}

// begin records that consumer began a run on item in session.
func (l *QueueLedger) begin(item, consumer string, session *framework.Session) *queueRun {
	r := &queueRun{consumer: consumer, session: session}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.runs == nil {
		l.runs, l.last = make(map[string][]*queueRun), make(map[string]*queueRun)
	}
	l.runs[item] = append(l.runs[item], r)
	l.last[consumer] = r
	return r
}

// end records the outcome of a run.
func (l *QueueLedger) end(r *queueRun, outcome string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r.outcome = outcome
}

// notTaken records that consumer did not take the item of its latest run:
// a consumer takes one item at a time, so the report follows that run.
func (l *QueueLedger) notTaken(consumer string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r := l.last[consumer]; r != nil {
		r.notClosed = true
	}
}

// RunView is what Check needs of one run: its outcome, whether its
// session is lost by the end, and whether its item was not taken after it.
type RunView struct {
	Outcome     string
	SessionLost bool
	NotClosed   bool
}

// views returns the puts and the runs as Check reads them. Sessions are
// looked at now: call it once the consumers have stopped.
func (l *QueueLedger) views() (map[string]string, map[string][]RunView) {
	l.mu.Lock()
	defer l.mu.Unlock()
	puts := make(map[string]string, len(l.puts))
	for k, v := range l.puts {
		puts[k] = v
	}
	runs := make(map[string][]RunView, len(l.runs))
	for item, rs := range l.runs {
		for _, r := range rs {
			runs[item] = append(runs[item], RunView{
				Outcome: r.outcome, SessionLost: r.session == nil || r.session.IsLost(), NotClosed: r.notClosed,
			})
		}
	}
	return puts, runs
}

// Counts returns the puts by outcome (and those that lost an answer) and
// the runs by outcome, the items taken, the runs of an item taken already
// (consumed_again), and the runs after which the consumer did not take
// the item (closings_failed).
func (l *QueueLedger) Counts() map[string]int {
	puts, runs := l.views()
	l.mu.Lock()
	lost := l.putsLost
	l.mu.Unlock()
	out := map[string]int{"puts_" + putApplied: 0, "puts_" + putUnknown: 0, "puts_" + putFailed: 0, "puts_answer_lost": lost,
		"runs_" + runDone: 0, "runs_" + runAbandoned: 0, "runs_" + runStopped: 0, "given_back_on_error": 0,
		"items_consumed": 0, "consumed_again": 0, "closings_failed": 0}
	for _, o := range puts {
		out["puts_"+o]++
	}
	for _, rs := range runs {
		done := 0
		for _, r := range rs {
			switch r.Outcome {
			case runFailed:
				out["given_back_on_error"]++
			case runDone:
				done++
			}
			if r.Outcome != "" && r.Outcome != runFailed {
				out["runs_"+r.Outcome]++
			}
			if r.NotClosed && r.Outcome == runDone {
				out["closings_failed"]++
			}
		}
		if done > 0 {
			out["items_consumed"]++
			out["consumed_again"] += done - 1
		}
	}
	return out
}

// Check returns a violation for every broken promise of the lock-safe
// mode (at least once) in the runs. Call it once the producers have
// stopped and the queue is drained. See CheckLockSafe.
func (l *QueueLedger) Check(at time.Time) []Violation {
	puts, runs := l.views()
	return l.violations(at, CheckLockSafe(puts, runs))
}

// CheckEffects returns a violation for every broken promise of the
// transactional mode (exactly once): effects counts the effect nodes of
// each item, read from the server once the queue is drained. See
// CheckExactlyOnce.
func (l *QueueLedger) CheckEffects(at time.Time, effects map[string]int) []Violation {
	puts, _ := l.views()
	return l.violations(at, CheckExactlyOnce(puts, effects))
}

// violations turns details into violations of the queue.
func (l *QueueLedger) violations(at time.Time, details []string) []Violation {
	out := make([]Violation, len(details))
	for i, d := range details {
		out[i] = Violation{Kind: "queue", Recipe: l.Name, At: at, Detail: d}
	}
	return out
}

// CheckLockSafe checks the lock-safe mode's promise against the puts'
// outcomes and the consumers' runs of each item:
//
//   - an item whose put was applied was taken: a run of it returned nil;
//   - an item whose put failed was never run, nor was an item nobody put;
//   - an item was taken by at most one run that may have closed it: a run
//     that returned nil, in a session that was not lost, and after which
//     the consumer did not report the item not taken. The others are the
//     at-least-once of the mode: an item whose lock went with its session,
//     or whose closing transaction failed, goes to the next consumer, so
//     it may be taken again; counted in consumed_again.
//
// A put whose outcome is unknown may have been applied or not: its item
// may or may not have runs. Runs that ended without returning nil
// (abandoned, stopped, failed on purpose) never count as taking an item.
func CheckLockSafe(puts map[string]string, runs map[string][]RunView) []string {
	var out []string
	for _, item := range sortedKeys(puts) {
		rs := runs[item]
		done, closing := 0, 0
		for _, r := range rs {
			if r.Outcome != runDone {
				continue
			}
			done++
			if !r.SessionLost && !r.NotClosed {
				closing++
			}
		}
		switch outcome := puts[item]; {
		case outcome == putApplied && done == 0:
			out = append(out, fmt.Sprintf("item %s: put applied, but never taken (%d runs)", item, len(rs)))
		case outcome == putFailed && len(rs) > 0:
			out = append(out, fmt.Sprintf("item %s: put failed, but run %d times", item, len(rs)))
		case closing > 1:
			out = append(out, fmt.Sprintf("item %s: taken by %d runs that may each have closed it (done in a session never lost, no failed closing)", item, closing))
		}
	}
	for _, item := range sortedKeys(runs) {
		if _, ok := puts[item]; !ok {
			out = append(out, fmt.Sprintf("item %s: run %d times, but no put of it ended", item, len(runs[item])))
		}
	}
	return out
}

// CheckExactlyOnce checks the transactional mode's promise: every item
// whose put was applied has exactly one effect, one whose outcome is
// unknown at most one, one whose put failed none; and no effect is of an
// item nobody put.
func CheckExactlyOnce(puts map[string]string, effects map[string]int) []string {
	var out []string
	for _, item := range sortedKeys(puts) {
		n := effects[item]
		switch outcome := puts[item]; {
		case outcome == putApplied && n != 1, outcome == putUnknown && n > 1, outcome == putFailed && n != 0:
			out = append(out, fmt.Sprintf("item %s: put %s, but %d effects", item, outcome, n))
		}
	}
	for _, item := range sortedKeys(effects) {
		if _, ok := puts[item]; !ok {
			out = append(out, fmt.Sprintf("item %s: %d effects, but no put of it ended", item, effects[item]))
		}
	}
	return out
}

// sortedKeys returns m's keys in order, so that violations read in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
