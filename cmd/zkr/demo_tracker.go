package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/zkrecipes/zkrecipes"
)

// releaseGrace bounds a demo worker's release.
const releaseGrace = 10 * time.Second

// tracker records one recipe's scenario and prints its events.
type tracker struct {
	recipe string
	limit  int
	total  int // acquisitions planned
	out    io.Writer
	start  time.Time

	mu          sync.Mutex // guards everything below, and out
	holding     map[int]bool
	waiting     int
	done        int // work completed under a hold
	acquired    int
	lost        int
	peak        int
	violations  int // an acquisition while limit others held, none of them told of a loss
	tokens      []int64
	outOfOrder  int
	waits       []time.Duration
	victim      int // the worker whose session was killed; 0 before
	killedAt    time.Time
	victimTold  bool // the victim was told of its loss
	takenOver   bool
	progressing bool // a progress line is on the terminal
	nodesLeft   int
}

// newTracker returns a tracker of a scenario about to start.
func newTracker(recipe string, limit, total int, out io.Writer) *tracker {
	return &tracker{recipe: recipe, limit: limit, total: total, out: out, start: time.Now(), holding: make(map[int]bool)}
}

// round is one acquisition by worker w, its work, and its release; a hold
// lost during the work ends the round early.
func (t *tracker) round(ctx context.Context, w *demoWorker, acquire func(context.Context) (demoHold, error), work time.Duration) error {
	for {
		t.update(func() { t.waiting++ })
		began := time.Now()
		h, err := acquire(ctx)
		t.update(func() { t.waiting-- })
		if errors.Is(err, zkrecipes.ErrLost) || errors.Is(err, zkrecipes.ErrSessionChanged) {
			continue // the session went while waiting: queue again in the new one
		}
		if err != nil {
			return err
		}
		t.hold(w.id, time.Since(began), h.token)
		t.work(ctx, w.id, h, work)
		rctx, cancel := context.WithTimeout(context.Background(), releaseGrace)
		err = h.release(rctx)
		cancel()
		if err != nil && ctx.Err() == nil && !errors.Is(err, zkrecipes.ErrLost) {
			return err
		}
		return ctx.Err()
	}
}

// work is worker id's work under hold h. The victim of the kill works on
// until it is told of the loss, as a long job would.
func (t *tracker) work(ctx context.Context, id int, h demoHold, work time.Duration) {
	timer := time.NewTimer(work)
	defer timer.Stop()
	select {
	case <-h.lost:
		t.lose(id, h.err())
		return
	case <-timer.C:
	case <-ctx.Done():
		return
	}
	t.mu.Lock()
	victim := t.victim == id && !t.victimTold
	if !victim {
		delete(t.holding, id)
		t.done++
	}
	t.mu.Unlock()
	if victim {
		select {
		case <-h.lost:
			t.lose(id, h.err())
		case <-ctx.Done():
		}
	}
}

// hold records worker id's acquisition.
func (t *tracker) hold(id int, wait time.Duration, token int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.holding) >= t.limit {
		t.violations++
	}
	t.holding[id] = true
	t.acquired++
	t.peak = max(t.peak, len(t.holding))
	t.waits = append(t.waits, wait)
	if token != 0 {
		if n := len(t.tokens); n > 0 && token <= t.tokens[n-1] {
			t.outOfOrder++
		}
		t.tokens = append(t.tokens, token)
	}
	if t.victim != 0 && id != t.victim && !t.takenOver && !t.holding[t.victim] && len(t.holding) == t.limit {
		t.takenOver = true
		what := "a lease"
		if token != 0 {
			what = fmt.Sprintf("the %s (token %d)", t.recipe, token)
		}
		t.eventLocked("worker %d takes %s %.1fs after the kill: the server has expired worker %d's session, so its place is free",
			id, what, time.Since(t.killedAt).Seconds(), t.victim)
	}
}

// lose records that worker id was told its hold was lost.
func (t *tracker) lose(id int, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.holding, id)
	t.lost++
	if id == t.victim {
		t.victimTold = true
	}
	t.eventLocked("worker %d is told it lost the %s (%v) and stops its work", id, t.recipe, err)
}

// update runs fn under the tracker's lock.
func (t *tracker) update(fn func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fn()
}

// event prints one line of the scenario's story.
func (t *tracker) eventLocked(format string, args ...any) {
	if t.progressing {
		fmt.Fprint(t.out, "\r\x1b[K")
		t.progressing = false
	}
	fmt.Fprintf(t.out, "  %5.2fs  %s\n", time.Since(t.start).Seconds(), fmt.Sprintf(format, args...))
}

// killMidway waits until a quarter of the work is done, then kills the session of
// a worker that holds: its connection goes silent, the client suspends and
// the hold is signalled lost, and the server expires the session after its
// timeout. The connection comes back once the session is gone.
func (t *tracker) killMidway(ctx context.Context, workers []*demoWorker, servers string, sessionTimeout time.Duration) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var victim *demoWorker
	for victim == nil {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		t.mu.Lock()
		if t.done >= t.total/4 {
			for _, w := range workers {
				if t.holding[w.id] {
					victim = w
					t.victim, t.killedAt = w.id, time.Now()
					t.eventLocked("worker %d holds the %s: killing its session (its connection to ZooKeeper goes silent)", w.id, t.recipe)
					break
				}
			}
		}
		t.mu.Unlock()
	}
	session := victim.client.Session()
	if session == nil {
		return
	}
	ectx, cancel := context.WithTimeout(ctx, 5*sessionTimeout)
	defer cancel()
	if err := victim.faults.ExpireSession(ectx, servers, session.ID()); err != nil && ctx.Err() == nil {
		t.update(func() { t.eventLocked("could not see the session expire (%v); reconnecting worker %d", err, victim.id) })
		return
	}
	if ctx.Err() == nil {
		t.update(func() {
			t.eventLocked("worker %d's session 0x%x has expired on the server; the worker reconnects with a new one", victim.id, session.ID())
		})
	}
}

// showProgress redraws a progress line (a terminal) or prints one every
// second (otherwise) until ctx ends; the channel is closed then.
func (t *tracker) showProgress(ctx context.Context, terminal bool) <-chan struct{} {
	done := make(chan struct{})
	every := time.Second
	if terminal {
		every = 100 * time.Millisecond
	}
	// Ends when the scenario does (ctx).
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				t.update(func() {
					if t.progressing {
						fmt.Fprint(t.out, "\r\x1b[K")
					}
					t.progressing = false
				})
				return
			case <-tick.C:
			}
			t.update(func() {
				line := fmt.Sprintf("  %5.2fs  holders %d/%d  queue %d  work done %d/%d  lost %d",
					time.Since(t.start).Seconds(), len(t.holding), t.limit, t.waiting, t.done, t.total, t.lost)
				if terminal {
					fmt.Fprint(t.out, "\r\x1b[K"+line)
					t.progressing = true
				} else {
					fmt.Fprintln(t.out, line)
				}
			})
		}
	}()
	return done
}

// printSummary prints one row per recipe.
func printSummary(out io.Writer, ts []*tracker) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "recipe\tacquired\tlost\twait p50\twait p99\tmost holders/limit\tfencing tokens in order\tviolations\tnodes left\t")
	for _, t := range ts {
		tokens := "n/a"
		if len(t.tokens) > 0 {
			tokens = fmt.Sprintf("%d of %d", len(t.tokens)-t.outOfOrder, len(t.tokens))
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%v\t%v\t%d/%d\t%s\t%d\t%d\t\n", t.recipe, t.acquired, t.lost,
			percentile(t.waits, 50), percentile(t.waits, 99), t.peak, t.limit, tokens, t.violations, t.nodesLeft)
	}
	_ = tw.Flush()
}

// percentile returns the p-th percentile of ds, rounded for reading.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	d := s[min(len(s)-1, (len(s)*p+99)/100-1)]
	return d.Round(time.Millisecond)
}
