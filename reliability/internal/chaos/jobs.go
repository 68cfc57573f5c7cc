package chaos

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
)

// The outcomes of an enqueue, as its producer saw them.
const (
	jobApplied = "applied" // Multi returned nil: exactly one job
	jobUnknown = "unknown" // ErrOutcomeUnknown: at most one
	jobFailed  = "failed"  // any other error: none
)

// Jobs is a queue of jobs that producers enqueue by guarded transactions
// and consumers take: each enqueue takes a mutex and, in one Multi with
// the hold's guard, creates a protected persistent-sequential node whose
// data is unique to that Multi. Nothing but a consumer deletes a job, and
// a consumer may take it before the producer has its answer. The check:
// a Multi that returned nil enqueued exactly one job, one that failed with
// ErrOutcomeUnknown at most one, one that failed otherwise none; never is
// one Multi's job taken from two nodes (a lost answer sent again). It is
// safe for concurrent use.
type Jobs struct {
	Dir   string // the queue's directory
	Clock *Clock

	mu       sync.Mutex
	outcomes map[string]string              // payload → outcome
	taken    map[string]map[string]struct{} // payload → names of the nodes it was taken from
}

// record notes the outcome of the enqueue of payload.
func (q *Jobs) record(payload string, err error) {
	outcome := jobApplied
	switch {
	case errors.Is(err, framework.ErrOutcomeUnknown):
		outcome = jobUnknown
	case err != nil:
		outcome = jobFailed
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.outcomes == nil {
		q.outcomes = make(map[string]string)
	}
	q.outcomes[payload] = outcome
}

// took notes that the job payload was read from the node name.
func (q *Jobs) took(payload, name string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.taken == nil {
		q.taken = make(map[string]map[string]struct{})
	}
	if q.taken[payload] == nil {
		q.taken[payload] = make(map[string]struct{})
	}
	q.taken[payload][name] = struct{}{}
}

// Take reads and deletes every job in the queue, through client.
func (q *Jobs) Take(ctx context.Context, client *framework.Client) error {
	names, _, err := client.Children(ctx, q.Dir)
	if err != nil {
		return err
	}
	for _, name := range names {
		path := zkpath.Join(q.Dir, name)
		data, _, err := client.Get(ctx, path)
		if errors.Is(err, zk.ErrNoNode) {
			continue // the producer's clean-up after an unknown outcome
		}
		if err != nil {
			return err
		}
		q.took(string(data), name)
		if err := client.Delete(ctx, path, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return err // taken again on the next round, from the same node
		}
	}
	return nil
}

// Counts returns the enqueues by outcome, and the jobs taken.
func (q *Jobs) Counts() map[string]int {
	q.mu.Lock()
	defer q.mu.Unlock()
	counts := map[string]int{jobApplied: 0, jobUnknown: 0, jobFailed: 0}
	for _, o := range q.outcomes {
		counts[o]++
	}
	counts["taken"] = len(q.taken)
	return counts
}

// Check returns a violation for every enqueue whose jobs do not match
// its outcome, and for every job no enqueue made. Call it once every
// producer has stopped and the queue is drained.
func (q *Jobs) Check() []Violation {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []Violation
	bad := func(format string, args ...any) {
		out = append(out, Violation{Kind: "jobs", Recipe: "guarded jobs", At: q.Clock.Now(), Detail: fmt.Sprintf(format, args...)})
	}
	for payload, outcome := range q.outcomes {
		n := len(q.taken[payload])
		if (outcome == jobApplied && n != 1) || (outcome == jobUnknown && n > 1) || (outcome == jobFailed && n != 0) {
			bad("enqueue %s: %s, but %d jobs were taken", payload, outcome, n)
		}
	}
	for payload := range q.taken {
		if _, ok := q.outcomes[payload]; !ok {
			bad("job %q taken, but no enqueue of it ended", payload)
		}
	}
	return out
}

// JobProducer enqueues jobs into a Jobs queue, one after another, each
// under a hold of Lock.
type JobProducer struct {
	Queue  *Jobs
	Client *framework.Client
	Lock   *mutex.Mutex
	Name   string // names the producer in the payloads
	Stats  *Stats

	n int
}

// Run enqueues until ctx ends.
func (p *JobProducer) Run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := p.enqueue(ctx); err != nil && ctx.Err() == nil {
			p.Stats.acquireError("guarded jobs", err)
			pause(ctx, errorPause)
		}
		pause(ctx, maxHoldTime)
	}
}

// enqueue takes the lock and enqueues one job under its guard.
func (p *JobProducer) enqueue(ctx context.Context) error {
	actx, cancel := context.WithTimeout(ctx, acquireTimeout)
	defer cancel()
	h, err := p.Lock.Acquire(actx)
	if err != nil {
		return err // no Multi was sent
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseBound)
		defer cancel()
		_ = h.Release(rctx)
	}()
	p.n++
	payload := fmt.Sprintf("%s/%d", p.Name, p.n)
	job := zkpath.Join(p.Queue.Dir, zkpath.ProtectedName(zkpath.NewProtectionID(), "job-"))
	_, err = p.Client.Multi(actx, h.Guard(), framework.CreateOp(job, []byte(payload), framework.PersistentSequential))
	p.Queue.record(payload, err)
	return err
}

// JobConsumer takes the jobs of a Jobs queue as they come.
type JobConsumer struct {
	Queue  *Jobs
	Client *framework.Client
	Stats  *Stats
}

// Run takes jobs until ctx ends.
func (c *JobConsumer) Run(ctx context.Context) {
	for ctx.Err() == nil {
		tctx, cancel := context.WithTimeout(ctx, acquireTimeout)
		err := c.Queue.Take(tctx, c.Client)
		cancel()
		if err != nil && ctx.Err() == nil {
			c.Stats.acquireError("guarded jobs taken", err)
			pause(ctx, errorPause)
		}
		pause(ctx, 5*time.Millisecond)
	}
}
