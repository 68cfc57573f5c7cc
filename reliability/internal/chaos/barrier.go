package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/barrier"
)

// maxStagger bounds how long a member of a double-barrier round waits
// before its Enter: the members arrive at different moments, so that one
// let through before the last has arrived would leave before it.
const maxStagger = 100 * time.Millisecond

// DoubleRounds runs a double barrier (barrier.Double) in rounds: in each,
// Members members, each on another client (taken in turn from Clients),
// enter a barrier of their own round, work for a moment, and leave. Every
// round has a path of its own (Dir/round-<n>), since a path serves one
// round at a time. It records when each member's Enter began and returned
// and when its Leave began and returned, on Clock, for Check.
type DoubleRounds struct {
	Clients []*framework.Client
	Members int
	Dir     string
	Clock   *Clock
	Stats   *Stats
	Seed    uint64

	mu     sync.Mutex
	rounds []Round
}

// Round is one round of a DoubleRounds: its members' records, and whether
// the end of the run cut it short.
type Round struct {
	Path     string
	Members  []Member
	CutShort bool // the run ended during it: neither completed nor broken
}

// Member is what one member of a round did, on the run's clock. A zero
// instant is a step it never took.
type Member struct {
	Client     int
	EnterBegan time.Time
	Entered    time.Time // Enter returned
	EnterErr   error
	LeaveBegan time.Time
	Left       time.Time // Leave returned
	LeaveErr   error
}

// Run plays rounds until ctx ends.
func (d *DoubleRounds) Run(ctx context.Context) {
	rnd := rand.New(rand.NewPCG(d.Seed, 0xba1))
	for n := 0; ctx.Err() == nil; n++ {
		r := d.play(ctx, n, rnd)
		d.mu.Lock()
		d.rounds = append(d.rounds, r)
		d.mu.Unlock()
	}
}

// play runs round n: its members at once, each after a stagger of its
// own, and returns once each has left or given up.
func (d *DoubleRounds) play(ctx context.Context, n int, rnd *rand.Rand) Round {
	r := Round{Path: fmt.Sprintf("%s/round-%06d", d.Dir, n), Members: make([]Member, d.Members)}
	var wg sync.WaitGroup
	for k := range d.Members {
		client := (n + k) % len(d.Clients)
		stagger := time.Duration(rnd.Int64N(int64(maxStagger)))
		work := workTime(rnd)
		wg.Go(func() { // ends when the member has left, or given up
			r.Members[k] = d.member(ctx, client, r.Path, stagger, work)
		})
	}
	wg.Wait()
	r.CutShort = ctx.Err() != nil
	return r
}

// workTime returns how long a member works between its Enter and its
// Leave: mostly a few milliseconds, now and then seconds, so that faults
// land in the work too.
func workTime(rnd *rand.Rand) time.Duration {
	if rnd.IntN(longHoldEvery) == 0 {
		return time.Duration(rnd.Int64N(int64(longHoldTime)))
	}
	return minHoldTime + time.Duration(rnd.Int64N(int64(maxHoldTime-minHoldTime)))
}

// member enters the round's barrier on its client, works, and leaves. Its
// Leave runs to its end after ctx ends (bounded), so that the others of a
// round that the run's end overtakes can leave too.
func (d *DoubleRounds) member(ctx context.Context, client int, path string, stagger, work time.Duration) Member {
	m := Member{Client: client}
	pause(ctx, stagger)
	if ctx.Err() != nil {
		return m // never began
	}
	double, err := barrier.NewDouble(d.Clients[client], path, d.Members)
	if err != nil {
		m.EnterErr = err
		return m
	}
	m.EnterBegan = d.Clock.Now()
	ectx, cancel := context.WithTimeout(ctx, acquireTimeout)
	member, err := double.Enter(ectx)
	cancel()
	m.Entered, m.EnterErr = d.Clock.Now(), err
	if err != nil {
		if ctx.Err() == nil {
			d.Stats.acquireError("double-barrier enter", err)
		}
		return m
	}
	pause(ctx, work)
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseBound)
	defer cancel()
	m.LeaveBegan = d.Clock.Now()
	m.LeaveErr = member.Leave(lctx)
	m.Left = d.Clock.Now()
	if m.LeaveErr != nil {
		d.Stats.releaseError("double-barrier leave", m.LeaveErr)
	}
	return m
}

// Rounds returns a copy of the rounds played so far.
func (d *DoubleRounds) Rounds() []Round {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Round, len(d.rounds))
	copy(out, d.rounds)
	return out
}

// Counts returns the rounds completed (every member entered and left) and
// broken (a member's Enter or Leave failed), and the members' failures
// that broke them: enters interrupted (of which enters_timed_out waited
// in vain for the others), leaves failed, members lost (their node gone
// with their session before they left). Rounds the run's end cut short
// count in none but cut_short.
func (d *DoubleRounds) Counts() map[string]int {
	out := map[string]int{"rounds_completed": 0, "rounds_broken": 0, "cut_short": 0,
		"enters_interrupted": 0, "enters_timed_out": 0, "leaves_failed": 0, "members_lost": 0}
	for _, r := range d.Rounds() {
		if r.CutShort {
			out["cut_short"]++
			continue
		}
		broken := false
		for _, m := range r.Members {
			broken = broken || m.EnterErr != nil || m.LeaveErr != nil
			if m.EnterErr != nil {
				out["enters_interrupted"]++
			}
			if errors.Is(m.EnterErr, context.DeadlineExceeded) {
				out["enters_timed_out"]++
			}
			if m.LeaveErr != nil {
				out["leaves_failed"]++
			}
			if errors.Is(m.EnterErr, zkrecipes.ErrLost) || errors.Is(m.LeaveErr, zkrecipes.ErrLost) {
				out["members_lost"]++
			}
		}
		if broken {
			out["rounds_broken"]++
		} else {
			out["rounds_completed"]++
		}
	}
	return out
}

// Check returns a violation for every member whose Leave returned nil
// before every member of its round had begun its Enter (a member that
// never began counts as beginning never), or before another member whose
// Leave returned nil had begun its Leave: that member's node stood until
// then, and no Leave returns while a member's node stands.
func (d *DoubleRounds) Check() []Violation {
	var out []Violation
	for _, r := range d.Rounds() {
		out = append(out, checkRound(r)...)
	}
	return out
}

// checkRound checks one round (see Check).
func checkRound(r Round) []Violation {
	var out []Violation
	bad := func(at time.Time, format string, args ...any) {
		out = append(out, Violation{Kind: "barrier", Recipe: "double-barrier", At: at,
			Detail: r.Path + ": " + fmt.Sprintf(format, args...)})
	}
	for i, m := range r.Members {
		if m.Left.IsZero() || m.LeaveErr != nil {
			continue
		}
		for j, o := range r.Members {
			switch {
			case o.EnterBegan.IsZero() || o.EnterBegan.After(m.Left):
				bad(m.Left, "member %d (client %d) left at %s, before member %d (client %d) began to enter (%s)",
					i, m.Client, stamp(m.Left), j, o.Client, stamp(o.EnterBegan))
			case j != i && !o.Left.IsZero() && o.LeaveErr == nil && o.LeaveBegan.After(m.Left):
				bad(m.Left, "member %d (client %d) left at %s, before member %d (client %d) began to leave (%s)",
					i, m.Client, stamp(m.Left), j, o.Client, stamp(o.LeaveBegan))
			}
		}
	}
	return out
}

// stamp renders an instant of the run for a violation; "never" for zero.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Format(time.TimeOnly + ".000000")
}
