package chaos

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes"
)

// Timing of a worker's loop.
const (
	acquireTimeout = 10 * time.Second       // one acquire, before it counts as not acquired
	tokenTimeout   = 2 * time.Second        // the fencing token read
	releaseBound   = 30 * time.Second       // a release (it goes on in the background after)
	errorPause     = 50 * time.Millisecond  // after a failed acquire, before the next
	maxHoldTime    = 20 * time.Millisecond  // a hold lasts up to this long
	minHoldTime    = 500 * time.Microsecond // and at least this long
	longHoldEvery  = 16                     // but one in this many holds
	longHoldTime   = 3 * time.Second        // lasts up to this long, so that faults hit holds
)

// Worker loops on one Locker: acquire, read the fencing token, hold for a
// moment or until the loss is signalled, release; it records every hold in
// the Ledger and counts outcomes in Stats.
type Worker struct {
	Recipe string // the name holds are recorded under
	Holder string // names the worker in the report
	Locker Locker
	Ledger *Ledger
	Stats  *Stats
	Seed   uint64 // of the hold times
	// HoldFor, if set, is how long every hold lasts unless it is lost;
	// by default most holds last a few milliseconds and a few last seconds.
	HoldFor time.Duration
	// Label names the worker's kind in the counts (e.g. "rwlock
	// downgrade"); Recipe by default.
	Label string

	rnd *rand.Rand // of the hold times, set by Run
}

// label returns the name the worker's outcomes are counted under.
func (w *Worker) label() string {
	if w.Label != "" {
		return w.Label
	}
	return w.Recipe
}

// Run loops until ctx ends, and returns after the last hold is released.
func (w *Worker) Run(ctx context.Context) {
	w.rnd = rand.New(rand.NewPCG(w.Seed, 0x5eed))
	for ctx.Err() == nil {
		actx, cancel := context.WithTimeout(ctx, acquireTimeout)
		h, err := w.Locker.Acquire(actx)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				w.Stats.acquireError(w.label(), err)
				pause(ctx, errorPause)
			}
			continue
		}
		w.hold(h, w.Locker.Exclusive())
	}
}

// holdTime returns how long the next hold lasts.
func (w *Worker) holdTime() time.Duration {
	switch {
	case w.HoldFor > 0:
		return w.HoldFor
	case w.rnd.IntN(longHoldEvery) == 0:
		return time.Duration(w.rnd.Int64N(int64(longHoldTime)))
	}
	return minHoldTime + time.Duration(w.rnd.Int64N(int64(maxHoldTime-minHoldTime)))
}

// hold records one hold, from its acquire to its release.
func (w *Worker) hold(h Held, exclusive bool) {
	d := w.holdTime()
	clock := w.Ledger.Clock()
	rec := w.record(h, exclusive)
	lostAt := make(chan time.Time, 1)
	released := make(chan struct{})
	lost := h.Lost()
	if isClosed(lost) { // lost before the acquire returned: never in force
		rec.End, rec.Lost = rec.Acquired, true
		w.finish(h, rec)
		return
	}
	w.Ledger.Begin(w.Holder)
	if lost != nil {
		// Ends at the loss signal or the release, whichever comes first.
		go func() {
			select {
			case <-lost:
				at := clock.Now()
				if s, ok := h.(LossStamped); ok {
					at = clock.At(s.LostAt())
				}
				lostAt <- at
			case <-released:
			}
		}()
	}
	tctx, cancel := context.WithTimeout(context.Background(), tokenTimeout)
	if v, ok := h.(Vetted); ok {
		if vetting, err := v.Vet(tctx); err == nil { // unknown when it cannot be read
			rec.Node, rec.Token, rec.Stale = vetting.Node, vetting.Token, vetting.Stale
		}
	} else {
		rec.Token, _ = h.FencingToken(tctx) // unknown (0) when it cannot be read
	}
	cancel()
	rec.End, rec.Lost = holdUntil(d, clock, lostAt, released)
	w.Ledger.Done(w.Holder)
	w.finish(h, rec)
}

// record starts the record of a hold, acquired now (or when the peer's
// acquire returned).
func (w *Worker) record(h Held, exclusive bool) Hold {
	clock := w.Ledger.Clock()
	rec := Hold{Recipe: w.Recipe, Holder: w.Holder, Node: h.Node(), Exclusive: exclusive, Acquired: clock.Now()}
	if p, ok := h.(PeerHeld); ok {
		rec.Acquired = clock.At(p.AcquiredAt())
	}
	if l, ok := h.(interface{ Leases() int }); ok {
		rec.Leases = l.Leases()
	}
	return rec
}

// holdUntil waits for d to pass or the loss to be signalled on lostAt,
// closes released, and returns when the hold ended and whether it was
// lost.
func holdUntil(d time.Duration, clock *Clock, lostAt <-chan time.Time, released chan struct{}) (time.Time, bool) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	var end time.Time
	lost := false
	select {
	case <-timer.C:
		end = clock.Now()
	case end = <-lostAt:
		lost = true
	}
	close(released)
	if !lost {
		select {
		case at := <-lostAt: // signalled just as the hold ended
			return at, true
		default:
		}
	}
	return end, lost
}

// finish releases the hold and records it. A hold the peer stamps ends when
// the peer began its release, which only its answer tells. A write hold
// that can downgrade does, and its read hold is recorded next.
func (w *Worker) finish(h Held, rec Hold) {
	rctx, cancel := context.WithTimeout(context.Background(), releaseBound)
	defer cancel()
	var err error
	var read Held
	if d, ok := h.(Downgrader); ok && !rec.Lost {
		read, err = d.Downgrade(rctx)
	} else if p, ok := h.(PeerHeld); ok {
		var called int64
		called, err = p.ReleaseAt(rctx)
		if err == nil && !rec.Lost {
			rec.End = w.Ledger.Clock().At(called)
		}
	} else {
		err = h.Release(rctx)
	}
	w.Ledger.Record(rec)
	w.Stats.held(w.label(), w.Holder, rec.Lost)
	if err != nil && !(rec.Lost && errors.Is(err, zkrecipes.ErrLost)) {
		w.Stats.releaseError(w.label(), err)
	}
	if read != nil {
		w.hold(read, false)
	}
}

// isClosed tells whether ch is closed; a nil channel never is.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
}

// CuratorHolder is the Holder name of the Curator peer's workers.
const CuratorHolder = "curator"

// Stats counts the outcomes of every worker of a run. It is safe for
// concurrent use.
type Stats struct {
	mu            sync.Mutex
	acquisitions  map[string]int
	losses        map[string]int
	acquireErrors map[string]int
	releaseErrors map[string]int
	examples      map[string]string // one message per error class
}

// NewStats returns empty counts.
func NewStats() *Stats {
	return &Stats{
		acquisitions: map[string]int{}, losses: map[string]int{},
		acquireErrors: map[string]int{}, releaseErrors: map[string]int{}, examples: map[string]string{},
	}
}

// held counts a hold; the Curator peer's holds are counted apart.
func (s *Stats) held(recipe, holder string, lost bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if holder == CuratorHolder {
		recipe += " by curator"
	}
	s.acquisitions[recipe]++
	if lost {
		s.losses[recipe]++
	}
}

func (s *Stats) acquireError(recipe string, err error) {
	s.count(s.acquireErrors, recipe+" acquire: "+errorClass(err), err)
}

func (s *Stats) releaseError(recipe string, err error) {
	s.count(s.releaseErrors, recipe+" release: "+errorClass(err), err)
}

func (s *Stats) count(m map[string]int, class string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m[class]++
	if _, ok := s.examples[class]; !ok {
		s.examples[class] = err.Error()
	}
}

// errorClass names the kind of err for the counts.
func errorClass(err error) string {
	switch {
	case errors.Is(err, zkrecipes.ErrNotAcquired):
		return "not acquired in time"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out" // an acquire's wait, or a release's bounded delete
	case errors.Is(err, zkrecipes.ErrLost):
		return "lost"
	case errors.Is(err, zkrecipes.ErrSessionChanged):
		return "session changed"
	case errors.Is(err, zkrecipes.ErrUnreachable):
		return "unreachable"
	case errors.Is(err, zkrecipes.ErrInvalidArgument):
		return "invalid argument"
	case errors.Is(err, zkrecipes.ErrOutcomeUnknown):
		return "outcome unknown" // an update's answer was lost
	}
	return "other"
}
