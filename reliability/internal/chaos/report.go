package chaos

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Report is what a chaos run measured, written as JSON.
type Report struct {
	Duration string         `json:"duration"`
	Seed     uint64         `json:"seed"`
	Clients  int            `json:"clients"`
	Faults   map[string]int `json:"faults"`
	// TLS says that the clients spoke TLS: no answer was swallowed by the
	// proxy, which cannot see the packets (TLSFaultKinds).
	TLS            bool `json:"tls,omitempty"`
	RepliesDropped int  `json:"replies_dropped"` // answers the lost-* faults swallowed
	// RepliesDroppedBy counts the swallowed answers by request: create,
	// set, multi, auth.
	RepliesDroppedBy map[string]int `json:"replies_dropped_by"`
	// HoldsInterrupted counts the holds signalled lost while in force.
	HoldsInterrupted int `json:"holds_interrupted"`
	// ExpiredUnderHolder counts the partitions past the session timeout
	// that began while the partitioned client held something.
	ExpiredUnderHolder int `json:"sessions_expired_under_holder"`
	// Fencing counts the writes of the fenced resource: accepted, and
	// refused for a stale token.
	Fencing map[string]int `json:"fencing,omitempty"`
	// Increments counts the shared-count increments: believed applied,
	// found on the server, and not known.
	Increments map[string]int `json:"increments,omitempty"`
	// Jobs counts the guarded enqueues by outcome (applied, unknown,
	// failed) and the jobs taken.
	Jobs map[string]int `json:"jobs,omitempty"`
	// Counter counts the increments of the distributed atomic counter by
	// outcome (believed, unknown: the answer was lost, failed, beaten by
	// other writers on every try; promoted to the lock), and its final
	// value.
	Counter map[string]int `json:"counter,omitempty"`
	// DoubleBarrier counts the double barrier's rounds (completed, broken,
	// cut short by the run's end) and the members' failures that broke
	// them (enters interrupted, leaves failed, members lost).
	DoubleBarrier map[string]int `json:"double_barrier,omitempty"`
	// LockSafeQueue and TxQueue count the queues' puts by outcome (and
	// those a try of which lost its answer, puts_answer_lost), their
	// consumers' runs by outcome (abandoned: the item's lock went with its
	// session mid-item; stopped: at the run's end), the items given back
	// on error and after a failed closing transaction, the items taken and
	// taken again (QueueLedger.Counts); TxQueue also the effects.
	LockSafeQueue map[string]int `json:"lock_safe_queue,omitempty"`
	TxQueue       map[string]int `json:"tx_queue,omitempty"`
	// SimpleQueue counts the Simple queue's offers by outcome, the items
	// taken, taken again, and dropped by a take whose delete's answer was
	// lost (SimpleLedger.Counts).
	SimpleQueue map[string]int `json:"simple_queue,omitempty"`
	// GrantsShrunk counts the reconnects that resumed a session under a
	// shorter grant than the ensemble's own (FaultShrinkGrant).
	GrantsShrunk    int               `json:"grants_shrunk"`
	Acquisitions    map[string]int    `json:"acquisitions"`
	LossesSignalled map[string]int    `json:"losses_signalled"`
	AcquireErrors   map[string]int    `json:"acquire_errors"`
	ReleaseErrors   map[string]int    `json:"release_errors"`
	ErrorExamples   map[string]string `json:"error_examples,omitempty"`
	Violations      []Violation       `json:"violations"`
	// JavaViolations are the violations that a stale hold of the Curator
	// peer explains (Violation.Java): Curator 5.4's, not a failure of the
	// run.
	JavaViolations   []Violation `json:"java_violations"`
	Orphans          []string    `json:"orphans"`
	LeakedGoroutines int         `json:"leaked_goroutines"`
	StateProblems    []string    `json:"state_problems"`
	// Caches counts the events the caches beside the recipes told, by
	// type, and the caches checked.
	Caches map[string]int `json:"caches,omitempty"`
	// CacheDivergences are the nodes on which a cache and the server
	// disagreed once the faults were over, and the events that broke a
	// path's sequence.
	CacheDivergences []string `json:"cache_divergences"`
	// Registry counts the service instances each client registered, the
	// registrations made again after a loss, and the longest an instance
	// was missing as an observer saw it.
	Registry map[string]int `json:"registry,omitempty"`
}

// AddViolations adds vs to the report, those of the Java side apart.
func (r *Report) AddViolations(vs []Violation) {
	for _, v := range vs {
		if v.Java != "" {
			r.JavaViolations = append(r.JavaViolations, v)
		} else {
			r.Violations = append(r.Violations, v)
		}
	}
}

// Fill copies the counts of stats into r.
func (r *Report) Fill(stats *Stats) {
	stats.mu.Lock()
	defer stats.mu.Unlock()
	r.Acquisitions = clone(stats.acquisitions)
	r.LossesSignalled = clone(stats.losses)
	r.AcquireErrors = clone(stats.acquireErrors)
	r.ReleaseErrors = clone(stats.releaseErrors)
	r.ErrorExamples = make(map[string]string, len(stats.examples))
	for k, v := range stats.examples {
		r.ErrorExamples[k] = v
	}
}

// Failed tells whether the run broke a promise or did not prove its faults
// bit: Problems is not empty.
func (r *Report) Failed() bool { return len(r.Problems()) > 0 }

// Problems lists what is wrong with the run: violations, orphans, leaked
// goroutines, clients whose states do not add up, and, in a run of
// MinBiteRun or longer, faults that did not bite: no hold interrupted, no
// answer dropped, no session expired under a holder (and the rarer ones of
// MinRareBiteRun).
func (r *Report) Problems() []string {
	var out []string
	add := func(bad bool, format string, args ...any) {
		if bad {
			out = append(out, fmt.Sprintf(format, args...))
		}
	}
	add(len(r.Violations) > 0, "%d violations", len(r.Violations))
	add(len(r.Orphans) > 0, "%d nodes left behind", len(r.Orphans))
	add(r.LeakedGoroutines > 0, "%d goroutines leaked", r.LeakedGoroutines)
	add(len(r.StateProblems) > 0, "%d state problems", len(r.StateProblems))
	add(len(r.CacheDivergences) > 0, "%d cache divergences", len(r.CacheDivergences))
	if d, err := time.ParseDuration(r.Duration); err == nil && d >= MinBiteRun {
		add(r.HoldsInterrupted == 0, "no fault interrupted a hold in %s", r.Duration)
		add(!r.TLS && r.RepliesDropped == 0, "no answer was dropped in %s", r.Duration)
		add(r.ExpiredUnderHolder == 0, "no session expired under a holder in %s", r.Duration)
	}
	if d, err := time.ParseDuration(r.Duration); err == nil && d >= MinRareBiteRun {
		add(r.GrantsShrunk == 0, "no session resumed under a shorter grant in %s", r.Duration)
		add(!r.TLS && r.Jobs[jobUnknown] == 0, "no guarded enqueue lost its answer in %s", r.Duration)
		add(!r.TLS && r.Counter[incrementUnknown] == 0, "no counter increment lost its answer in %s", r.Duration)
		add(r.DoubleBarrier["rounds_broken"] == 0, "no double-barrier round was broken in %s", r.Duration)
		add(!r.TLS && r.LockSafeQueue["puts_answer_lost"]+r.TxQueue["puts_answer_lost"] == 0, "no queue put lost its answer in %s", r.Duration)
		add(givenBackByFaults(r.LockSafeQueue)+givenBackByFaults(r.TxQueue) == 0, "no queue item was given back by a fault in %s", r.Duration)
	}
	return out
}

// givenBackByFaults counts a queue's items given back by a fault: runs
// whose lock went with its session mid-item, and runs after which the
// closing transaction failed.
func givenBackByFaults(counts map[string]int) int {
	return counts["runs_abandoned"] + counts["closings_failed"]
}

// Summary is the report in one line.
func (r *Report) Summary() string {
	return fmt.Sprintf("chaos: %s seed=%d clients=%d tls=%t faults={%s} replies_dropped=%d {%s} holds_interrupted=%d sessions_expired_under_holder=%d "+
		"acquisitions={%s} losses={%s} fencing={%s} increments={%s} jobs={%s} counter={%s} double_barrier={%s} lock_safe_queue={%s} tx_queue={%s} simple_queue={%s} grants_shrunk=%d caches={%s} cache_divergences=%d registry={%s} violations=%d java_violations=%d orphans=%d leaked_goroutines=%d state_problems=%d",
		r.Duration, r.Seed, r.Clients, r.TLS, kv(r.Faults), r.RepliesDropped, kv(r.RepliesDroppedBy), r.HoldsInterrupted, r.ExpiredUnderHolder,
		kv(r.Acquisitions), kv(r.LossesSignalled), kv(r.Fencing), kv(r.Increments), kv(r.Jobs), kv(r.Counter), kv(r.DoubleBarrier), kv(r.LockSafeQueue), kv(r.TxQueue), kv(r.SimpleQueue), r.GrantsShrunk,
		kv(r.Caches), len(r.CacheDivergences), kv(r.Registry), len(r.Violations), len(r.JavaViolations), len(r.Orphans), r.LeakedGoroutines, len(r.StateProblems))
}

// Write writes the report as indented JSON to path, making its directory.
func (r *Report) Write(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// NewReport returns a report of a run of d with seed and n clients.
func NewReport(d time.Duration, seed uint64, n int) *Report {
	return &Report{Duration: d.String(), Seed: seed, Clients: n, Violations: []Violation{}, JavaViolations: []Violation{}, Orphans: []string{}, StateProblems: []string{}, CacheDivergences: []string{}}
}

func clone(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// kv renders m as "a=1 b=2", sorted by key.
func kv(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}
