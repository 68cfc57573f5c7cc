package chaos

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// Hold is the record of one hold, as its worker saw it.
type Hold struct {
	// Recipe is the name of the lock the hold was on.
	Recipe string `json:"recipe"`
	// Holder names the worker, e.g. "go-2" or "curator".
	Holder string `json:"holder"`
	// Node is the hold's node, when known.
	Node string `json:"node,omitempty"`
	// Exclusive tells whether the hold excludes every other hold of Recipe.
	Exclusive bool `json:"exclusive"`
	// Acquired is when the acquire returned.
	Acquired time.Time `json:"acquired"`
	// End is when the hold ended: the release began, or the loss was
	// signalled, whichever came first. A hold is in force over
	// [Acquired, End).
	End time.Time `json:"end"`
	// Lost tells whether the loss was signalled before the release began.
	Lost bool `json:"lost"`
	// Token is the fencing token, 0 when unknown.
	Token int64 `json:"token,omitempty"`
	// Leases is how many of the recipe's Limit the hold takes (several
	// leases acquired at once); 0 counts as 1.
	Leases int `json:"leases,omitempty"`
	// Stale says why the Curator peer's hold was not backed by a node of
	// its live session when it began (see Vetting); empty when it was.
	Stale string `json:"stale,omitempty"`
}

// weight returns how many of the recipe's Limit h takes.
func (h Hold) weight() int { return max(h.Leases, 1) }

// Violation is a broken promise: holds that overlapped, fencing tokens
// that did not increase, a resource that accepted a stale write, a
// shared count or counter that does not add up, a double-barrier
// member that left before its round had entered, or a queue item lost,
// taken twice or applied twice.
type Violation struct {
	// Kind is "overlap", "fencing", "stale-write", "count", "barrier" or
	// "queue".
	Kind string `json:"kind"`
	// Recipe is the lock whose promise was broken.
	Recipe string `json:"recipe"`
	// At is when the overlap began, or when the second hold was acquired.
	At time.Time `json:"at"`
	// Holds are the holds involved, the new one last.
	Holds []Hold `json:"holds,omitempty"`
	// Detail says what broke when no hold does.
	Detail string `json:"detail,omitempty"`
	// Java names the Curator 5.4 defect that explains the violation: a
	// hold of the Curator peer in it was stale (Hold.Stale). Such a
	// violation is the Java side's, and is reported apart.
	Java string `json:"java,omitempty"`
}

// String describes the violation for a test log.
func (v Violation) String() string {
	s := fmt.Sprintf("%s on %s at %s:", v.Kind, v.Recipe, v.At.Format(time.TimeOnly+".000000"))
	if v.Detail != "" {
		s += " " + v.Detail
	}
	for _, h := range v.Holds {
		s += fmt.Sprintf(" [%s %s token=%#x %s..%s lost=%t]", h.Holder, h.Node, h.Token,
			h.Acquired.Format(time.TimeOnly+".000000"), h.End.Format(time.TimeOnly+".000000"), h.Lost)
	}
	return s
}

// Ledger collects holds from concurrent workers and checks them. The
// zero value is not usable; call NewLedger.
type Ledger struct {
	clock *Clock

	mu     sync.Mutex
	limits map[string]int
	holds  []Hold
	active map[string]int // holds in force, by holder
}

// NewLedger returns an empty ledger with a clock of its own.
func NewLedger() *Ledger {
	return &Ledger{clock: NewClock(), limits: make(map[string]int), active: make(map[string]int)}
}

// Begin notes that holder holds one more hold, until Done.
func (l *Ledger) Begin(holder string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.active[holder]++
}

// Done notes that a hold of holder has ended.
func (l *Ledger) Done(holder string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.active[holder]--; l.active[holder] <= 0 {
		delete(l.active, holder)
	}
}

// Holding tells whether client (a holder's name, or the name its holders
// start with and "/") holds something right now.
func (l *Ledger) Holding(client string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for holder := range l.active {
		if ownedBy(holder, client) {
			return true
		}
	}
	return false
}

// Clock returns the clock every instant recorded in l is read from.
func (l *Ledger) Clock() *Clock { return l.clock }

// SetLimit sets how many non-exclusive holds of recipe may overlap (0: no
// limit). A recipe whose limit was never set has limit 1.
func (l *Ledger) SetLimit(recipe string, limit int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.limits[recipe] = limit
}

// Record adds a finished hold.
func (l *Ledger) Record(h Hold) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.holds = append(l.holds, h)
}

// Holds returns a copy of the holds recorded so far.
func (l *Ledger) Holds() []Hold {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.holds)
}

// Check returns every violation among the holds recorded so far.
//
// An overlap is a hold that begins while holds in force already exclude
// it: an exclusive hold and any other, or more non-exclusive holds than the
// recipe's limit. A hold is in force from its acquire until it was released
// or signalled lost, so two holds of which one was signalled lost before
// the other began never overlap: that is exactly the standard error
// policy's promise.
//
// A violation with a stale hold of the Curator peer in it names the Java
// side's defect (Violation.Java).
//
// Fencing: among the exclusive holds of a recipe in order of acquisition,
// each token is greater than the one before, or equal to it for a hold of
// the same holder on the same node: a leader that leads again with its
// node after a blip (the leader package's latch and selector, as
// Curator's latch) keeps the node's token, no one having held between.
// Holds with no token, and holds already signalled lost when their
// acquire returned, are left out.
func (l *Ledger) Check() []Violation {
	l.mu.Lock()
	byRecipe := make(map[string][]Hold)
	for _, h := range l.holds {
		byRecipe[h.Recipe] = append(byRecipe[h.Recipe], h)
	}
	limits := make(map[string]int, len(l.limits))
	for k, v := range l.limits {
		limits[k] = v
	}
	l.mu.Unlock()

	var out []Violation
	names := make([]string, 0, len(byRecipe))
	for name := range byRecipe {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		holds := byRecipe[name]
		slices.SortStableFunc(holds, func(a, b Hold) int { return a.Acquired.Compare(b.Acquired) })
		limit, ok := limits[name]
		if !ok {
			limit = 1
		}
		out = append(out, overlaps(name, holds, limit)...)
		out = append(out, fencing(name, holds)...)
	}
	for i := range out {
		out[i].Java = javaSide(out[i].Holds)
	}
	return out
}

// javaSide names the stale hold of the Curator peer among holds, if any:
// a hold whose node the server had already deleted, or was about to
// delete with a session the peer had left, breaks exclusion whatever the
// other side does.
func javaSide(holds []Hold) string {
	for _, h := range holds {
		if h.Stale != "" {
			return h.Holder + " " + h.Node + ": " + h.Stale
		}
	}
	return ""
}

// overlaps sweeps holds, sorted by Acquired, for starts that break the
// recipe's exclusion.
func overlaps(recipe string, holds []Hold, limit int) []Violation {
	var out []Violation
	var active []Hold
	for _, h := range holds {
		if !h.End.After(h.Acquired) {
			continue // lost before it began: never in force
		}
		active = slices.DeleteFunc(active, func(a Hold) bool { return !a.End.After(h.Acquired) })
		broken := len(active) > 0 && h.Exclusive
		taken := h.weight()
		for _, a := range active {
			broken = broken || a.Exclusive
			taken += a.weight()
		}
		if limit > 0 && taken > limit {
			broken = true
		}
		if broken {
			out = append(out, Violation{Kind: "overlap", Recipe: recipe, At: h.Acquired, Holds: append(slices.Clone(active), h)})
		}
		active = append(active, h)
	}
	return out
}

// fencing checks that the tokens of exclusive holds, sorted by Acquired,
// increase, but for a node held again by its holder.
func fencing(recipe string, holds []Hold) []Violation {
	var out []Violation
	var prev *Hold
	for i := range holds {
		h := &holds[i]
		if !h.Exclusive || h.Token == 0 || !h.End.After(h.Acquired) {
			continue
		}
		if prev != nil && h.Token <= prev.Token && !sameNode(*prev, *h) {
			out = append(out, Violation{Kind: "fencing", Recipe: recipe, At: h.Acquired, Holds: []Hold{*prev, *h}})
		}
		prev = h
	}
	return out
}

// sameNode reports whether b holds again, with the same token, the node
// that a held: its holder leads again after a blip with its node kept.
func sameNode(a, b Hold) bool {
	return a.Node != "" && a.Node == b.Node && a.Holder == b.Holder && a.Token == b.Token
}
