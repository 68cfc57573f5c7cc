package zktest

import (
	"sync"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Recorder is a framework.Observer that keeps every event, for tests of
// what the client and the recipes report.
type Recorder struct {
	mu       sync.Mutex
	requests []framework.RequestEvent
	retries  []framework.RetryEvent
	states   []framework.StateEvent
	acquires []framework.AcquireEvent
	starts   []framework.HoldEvent
	holds    []framework.HoldEvent
	terms    []framework.TermEvent
}

// OnRequest keeps ev.
func (r *Recorder) OnRequest(ev framework.RequestEvent) { keep(r, &r.requests, ev) }

// OnRetry keeps ev.
func (r *Recorder) OnRetry(ev framework.RetryEvent) { keep(r, &r.retries, ev) }

// OnState keeps ev.
func (r *Recorder) OnState(ev framework.StateEvent) { keep(r, &r.states, ev) }

// OnAcquire keeps ev.
func (r *Recorder) OnAcquire(ev framework.AcquireEvent) { keep(r, &r.acquires, ev) }

// OnHoldStart keeps ev.
func (r *Recorder) OnHoldStart(ev framework.HoldEvent) { keep(r, &r.starts, ev) }

// OnHoldEnd keeps ev.
func (r *Recorder) OnHoldEnd(ev framework.HoldEvent) { keep(r, &r.holds, ev) }

// OnTerm keeps ev.
func (r *Recorder) OnTerm(ev framework.TermEvent) { keep(r, &r.terms, ev) }

func keep[E any](r *Recorder, list *[]E, ev E) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*list = append(*list, ev)
}

func get[E any](r *Recorder, list *[]E) []E {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]E(nil), *list...)
}

// Requests returns the requests reported so far.
func (r *Recorder) Requests() []framework.RequestEvent { return get(r, &r.requests) }

// Retries returns the retries reported so far.
func (r *Recorder) Retries() []framework.RetryEvent { return get(r, &r.retries) }

// States returns the state changes reported so far.
func (r *Recorder) States() []framework.StateEvent { return get(r, &r.states) }

// Acquires returns the acquire events reported so far.
func (r *Recorder) Acquires() []framework.AcquireEvent { return get(r, &r.acquires) }

// HoldStarts returns the hold starts reported so far.
func (r *Recorder) HoldStarts() []framework.HoldEvent { return get(r, &r.starts) }

// Holds returns the hold ends reported so far.
func (r *Recorder) Holds() []framework.HoldEvent { return get(r, &r.holds) }

// Terms returns the term events reported so far.
func (r *Recorder) Terms() []framework.TermEvent { return get(r, &r.terms) }

// HasState reports whether a change to state was reported.
func (r *Recorder) HasState(state framework.ConnectionState) bool {
	for _, ev := range r.States() {
		if ev.Change.State == state {
			return true
		}
	}
	return false
}

// RequestOps returns how many tries of each op were reported.
func (r *Recorder) RequestOps() map[string]int {
	ops := map[string]int{}
	for _, ev := range r.Requests() {
		ops[ev.Op]++
	}
	return ops
}
