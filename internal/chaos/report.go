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
	Duration         string            `json:"duration"`
	Seed             uint64            `json:"seed"`
	Clients          int               `json:"clients"`
	Faults           map[string]int    `json:"faults"`
	RepliesDropped   int               `json:"replies_dropped"` // create answers the lost-reply faults swallowed
	Acquisitions     map[string]int    `json:"acquisitions"`
	LossesSignalled  map[string]int    `json:"losses_signalled"`
	AcquireErrors    map[string]int    `json:"acquire_errors"`
	ReleaseErrors    map[string]int    `json:"release_errors"`
	ErrorExamples    map[string]string `json:"error_examples,omitempty"`
	Violations       []Violation       `json:"violations"`
	Orphans          []string          `json:"orphans"`
	LeakedGoroutines int               `json:"leaked_goroutines"`
	StateProblems    []string          `json:"state_problems"`
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

// Failed tells whether the run broke a promise: a violation, an orphan, a
// leaked goroutine or a client whose states do not add up.
func (r *Report) Failed() bool {
	return len(r.Violations) > 0 || len(r.Orphans) > 0 || r.LeakedGoroutines > 0 || len(r.StateProblems) > 0
}

// Summary is the report in one line.
func (r *Report) Summary() string {
	return fmt.Sprintf("chaos: %s seed=%d clients=%d faults={%s} replies_dropped=%d acquisitions={%s} losses={%s} violations=%d orphans=%d leaked_goroutines=%d state_problems=%d",
		r.Duration, r.Seed, r.Clients, kv(r.Faults), r.RepliesDropped, kv(r.Acquisitions), kv(r.LossesSignalled),
		len(r.Violations), len(r.Orphans), r.LeakedGoroutines, len(r.StateProblems))
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
	return &Report{Duration: d.String(), Seed: seed, Clients: n, Violations: []Violation{}, Orphans: []string{}, StateProblems: []string{}}
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
