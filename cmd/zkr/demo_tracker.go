package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes"
)

// releaseGrace bounds a demo worker's release.
const releaseGrace = 10 * time.Second

// holder is a hold the tracker counts.
type holder struct {
	kind  *demoKind
	token int64
}

// tracker records one recipe's scenario and prints its events.
type tracker struct {
	r     demoRecipe
	total int // acquisitions planned
	out   io.Writer
	start time.Time

	mu          sync.Mutex // guards everything below, and out
	stats       map[*demoKind]*kindStats
	holding     map[int]holder // by worker id
	maxEnded    map[*demoKind]int64
	waiting     int
	done        int // work completed under a hold
	victim      int // the worker whose session was killed; 0 before
	victimKind  *demoKind
	killedAt    time.Time
	victimTold  bool // the victim was told of its loss
	takenOver   bool
	progressing bool // a progress line is on the terminal
}

// kindStats is what the tracker counts for one kind of hold: a summary row.
type kindStats struct {
	acquired   int
	lost       int
	peak       int
	violations int // a hold handed out that its kind's rule forbade
	tokens     int
	outOfOrder int // a token not above every conflicting hold that had ended
	waits      []time.Duration
	nodesLeft  int
}

// newTracker returns a tracker of recipe r's scenario, about to start.
func newTracker(r demoRecipe, total int, out io.Writer) *tracker {
	t := &tracker{
		r: r, total: total, out: out, start: time.Now(),
		stats: make(map[*demoKind]*kindStats), holding: make(map[int]holder), maxEnded: make(map[*demoKind]int64),
	}
	for _, k := range r.kinds {
		t.stats[k] = &kindStats{}
	}
	return t
}

// round is acquisition number n by worker w, its work, and its release; a
// hold lost during the work ends the round early.
func (t *tracker) round(ctx context.Context, w *demoWorker, acquire demoAcquire, n int) error {
	for {
		t.update(func() { t.waiting++ })
		began := time.Now()
		h, err := acquire(ctx, n)
		t.update(func() { t.waiting-- })
		if errors.Is(err, zkrecipes.ErrLost) || errors.Is(err, zkrecipes.ErrSessionChanged) {
			continue // the session went while waiting: queue again in the new one
		}
		if err != nil {
			return err
		}
		t.hold(w.id, time.Since(began), h)
		t.work(ctx, w.id, h)
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
func (t *tracker) work(ctx context.Context, id int, h demoHold) {
	timer := time.NewTimer(h.kind.work)
	defer timer.Stop()
	select {
	case <-h.lost:
		t.lose(id, h)
		return
	case <-timer.C:
	case <-ctx.Done():
		return
	}
	t.mu.Lock()
	victim := t.victim == id && !t.victimTold
	if !victim {
		t.endLocked(id)
		t.done++
	}
	t.mu.Unlock()
	if victim {
		select {
		case <-h.lost:
			t.lose(id, h)
		case <-ctx.Done():
		}
	}
}

// hold records worker id's acquisition of h, checking it against the holds
// under way and those that ended before it.
func (t *tracker) hold(id int, wait time.Duration, h demoHold) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.stats[h.kind]
	if !t.r.admits(h.kind, t.holding) {
		s.violations++
	}
	if h.token != 0 {
		s.tokens++
		for k, ended := range t.maxEnded {
			if t.r.fences(h.kind, k) && h.token <= ended {
				s.outOfOrder++
				break
			}
		}
	}
	victimGone := t.victim != 0 && id != t.victim && !t.takenOver
	if _, holds := t.holding[t.victim]; holds {
		victimGone = false
	}
	// A hold the victim's place would have refused: its session has expired.
	takesOver := victimGone && !t.r.admits(h.kind, with(t.holding, t.victim, holder{kind: t.victimKind}))
	t.holding[id] = holder{kind: h.kind, token: h.token}
	s.acquired++
	s.peak = max(s.peak, t.countLocked(h.kind))
	s.waits = append(s.waits, wait)
	if takesOver {
		t.takenOver = true
		what := h.kind.noun
		if h.token != 0 {
			what += fmt.Sprintf(" (token %d)", h.token)
		}
		t.eventLocked("worker %d takes %s %.1fs after the kill: the server has expired worker %d's session, so its place is free",
			id, what, time.Since(t.killedAt).Seconds(), t.victim)
	}
}

// with returns a copy of holding with h added as worker id's.
func with(holding map[int]holder, id int, h holder) map[int]holder {
	out := make(map[int]holder, len(holding)+1)
	for k, v := range holding {
		out[k] = v
	}
	out[id] = h
	return out
}

// countLocked returns how many holds of kind are under way.
func (t *tracker) countLocked(kind *demoKind) int {
	n := 0
	for _, h := range t.holding {
		if h.kind == kind {
			n++
		}
	}
	return n
}

// endLocked records that worker id's hold has ended (its release begins):
// a later conflicting hold must have a greater token.
func (t *tracker) endLocked(id int) {
	h, ok := t.holding[id]
	if !ok {
		return
	}
	delete(t.holding, id)
	t.maxEnded[h.kind] = max(t.maxEnded[h.kind], h.token)
}

// lose records that worker id was told its hold h was lost.
func (t *tracker) lose(id int, h demoHold) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endLocked(id)
	t.stats[h.kind].lost++
	if id == t.victim {
		t.victimTold = true
	}
	t.eventLocked("worker %d is told it lost %s (%v) and stops its work", id, h.kind.noun, h.err())
}

// update runs fn under the tracker's lock.
func (t *tracker) update(fn func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fn()
}

// eventLocked prints one line of the scenario's story.
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
				if h, ok := t.holding[w.id]; ok {
					victim = w
					t.victim, t.victimKind, t.killedAt = w.id, h.kind, time.Now()
					t.eventLocked("worker %d holds %s: killing its session (its connection to ZooKeeper goes silent)", w.id, h.kind.noun)
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
				line := fmt.Sprintf("  %5.2fs  %s  queue %d  work done %d/%d  lost %d",
					time.Since(t.start).Seconds(), t.holdersLocked(), t.waiting, t.done, t.total, t.lostLocked())
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

// holdersLocked describes the holds under way, per kind.
func (t *tracker) holdersLocked() string {
	if len(t.r.kinds) == 1 {
		k := t.r.kinds[0]
		return fmt.Sprintf("holders %d/%d", t.countLocked(k), k.limit)
	}
	parts := make([]string, len(t.r.kinds))
	for i, k := range t.r.kinds {
		parts[i] = fmt.Sprintf("%s %d/%d", k.short, t.countLocked(k), k.limit)
	}
	return strings.Join(parts, ", ")
}

// lostLocked returns the holds lost so far.
func (t *tracker) lostLocked() int {
	n := 0
	for _, s := range t.stats {
		n += s.lost
	}
	return n
}
