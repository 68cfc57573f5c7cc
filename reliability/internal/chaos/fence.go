package chaos

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/leases"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
)

// Resource is a store guarded by fencing tokens, as a lock's user would
// guard one: it keeps the highest token it has seen and refuses a write
// with a lower one. A write with the highest token is accepted only from
// the holder that first wrote with it: a second holder with the same token
// is a stale holder that fencing could not tell apart, and its write,
// accepted out of order, is a violation. It is safe for concurrent use.
type Resource struct {
	Name  string // names the resource in violations
	Clock *Clock

	mu         sync.Mutex
	highest    int64
	writer     string // the holder that wrote with highest
	accepted   int
	refused    int
	violations []Violation
}

// Write writes for holder with token, and tells whether it was accepted.
// Token 0 (unknown) is not written.
func (r *Resource) Write(holder string, token int64) bool {
	if token == 0 {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case token < r.highest:
		r.refused++
		return false
	case token == r.highest && holder != r.writer:
		r.violations = append(r.violations, Violation{Kind: "stale-write", Recipe: r.Name, At: r.Clock.Now(), Detail: fmt.Sprintf(
			"%s wrote with token %#x after %s had written with it", holder, token, r.writer)})
	}
	r.highest, r.writer = token, holder
	r.accepted++
	return true
}

// Counts returns the accepted and the refused writes.
func (r *Resource) Counts() (accepted, refused int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.accepted, r.refused
}

// Violations returns the writes accepted out of order.
func (r *Resource) Violations() []Violation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Violation(nil), r.violations...)
}

// TTLResumer holds TTL leases of a one-lease semaphore and hands each, by
// its name, to a second client, which takes it over with Resume, as a
// restarted process would. Both write to Resource with their fencing
// tokens: the first holder before the take-over, the second after, then
// the first again, still believing it holds (no loss yet signalled), and
// the resource must refuse that write. Holds go to the Ledger: the first
// holder's until the take-over began, the second's until its return.
type TTLResumer struct {
	First, Second *semaphore.Semaphore // of two clients, on one path, WithTTL
	Recipe        string
	Holder        string // names the first holder, of First's client
	SecondHolder  string // names the second holder, of Second's client
	Ledger        *Ledger
	Stats         *Stats
	Resource      *Resource

	mu         sync.Mutex
	staleTries int // writes of a first holder that believed it held after the take-over
}

// StaleTries returns how many writes a first holder made after the
// take-over while it still believed it held; the resource refused those
// it could tell stale.
func (r *TTLResumer) StaleTries() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.staleTries
}

// Run hands leases over until ctx ends.
func (r *TTLResumer) Run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := r.handOver(ctx); err != nil && ctx.Err() == nil {
			r.Stats.acquireError(r.Recipe, err)
		}
		pause(ctx, handOverGap)
	}
}

// handOver acquires a lease with First, takes it over with Second, and
// returns it.
func (r *TTLResumer) handOver(ctx context.Context) error {
	clock := r.Ledger.Clock()
	actx, cancel := context.WithTimeout(ctx, acquireTimeout)
	defer cancel()
	first, err := r.First.Acquire(actx)
	if err != nil {
		return err
	}
	rec := Hold{Recipe: r.Recipe, Holder: r.Holder, Node: first.Node(), Exclusive: true, Acquired: clock.Now()}
	rec.Token, _ = first.FencingToken(actx)
	r.Resource.Write(r.Holder, rec.Token)
	pause(ctx, minHoldTime)
	rec.End = clock.Now()
	if isClosed(first.Lost()) {
		rec.Lost = true
	}
	second, err := r.Second.Resume(actx, zkpath.Base(first.Node()))
	r.Ledger.Record(rec)
	r.Stats.held(r.Recipe, r.Holder, rec.Lost)
	if err != nil {
		return errors.Join(err, ignoreLost(first.Release(context.WithoutCancel(ctx))))
	}
	r.resumed(ctx, first, second, rec.Token)
	return nil
}

// resumed holds the taken-over lease, lets the first holder try a write,
// and returns both.
func (r *TTLResumer) resumed(ctx context.Context, first, second *leases.Lease, firstToken int64) {
	clock := r.Ledger.Clock()
	holder := r.SecondHolder
	rec := Hold{Recipe: r.Recipe, Holder: holder, Node: second.Node(), Exclusive: true, Acquired: clock.Now()}
	tctx, cancel := context.WithTimeout(ctx, tokenTimeout)
	rec.Token, _ = second.FencingToken(tctx)
	cancel()
	r.Resource.Write(holder, rec.Token)
	if first.Err() == nil && !isClosed(first.Lost()) {
		r.mu.Lock()
		r.staleTries++
		r.mu.Unlock()
		r.Resource.Write(r.Holder, firstToken) // refused, if fencing works
	}
	pause(ctx, minHoldTime)
	rec.End = clock.Now()
	rec.Lost = isClosed(second.Lost())
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseBound)
	defer cancel()
	err := second.Release(rctx)
	r.Ledger.Record(rec)
	r.Stats.held(r.Recipe, holder, rec.Lost)
	if err = errors.Join(err, ignoreLost(first.Release(rctx))); err != nil {
		r.Stats.releaseError(r.Recipe, err)
	}
}

// ignoreLost drops ErrLost: returning a lease that was taken over, or
// that ran out, is expected to say so.
func ignoreLost(err error) error {
	if errors.Is(err, leases.ErrLost) {
		return nil
	}
	return err
}

// handOverGap is the pause between two hand-overs of a TTLResumer, so
// that the TTL leases contend without crowding out the other recipes.
const handOverGap = 200 * time.Millisecond

// ttlFor is the time to live of the chaos run's TTL leases: longer than
// every hold of a hand-over, so that the first holder still believes it
// holds when it tries its stale write.
const ttlFor = 5 * time.Second

// TTL returns the time to live the chaos run gives its TTL leases.
func TTL() time.Duration { return ttlFor }
