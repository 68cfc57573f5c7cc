package chaos

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

// SimpleLedger is the ledger of a Simple queue (recipes/queue, ZooKeeper's
// own queue recipe, at most once) under the faults: the outcome of every
// offer of an item, how often takes returned each item, and the takes
// whose delete's answer was lost (ErrOutcomeUnknown: the item is dropped,
// never handed out). Every item is offered once, under a name of its
// own. It is safe for concurrent use.
type SimpleLedger struct {
	Name  string // the queue, in violations
	Clock *Clock

	mu      sync.Mutex
	offers  map[string]string // item → outcome (putApplied, putUnknown, putFailed)
	takes   map[string]int
	dropped int
}

// offered records the outcome of the offer of item.
func (l *SimpleLedger) offered(item string, err error) {
	outcome := putOutcome(err)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.offers == nil {
		l.offers, l.takes = make(map[string]string), make(map[string]int)
	}
	l.offers[item] = outcome
}

// took records that a take returned item; dropped (item "") that a take's
// delete lost its answer.
func (l *SimpleLedger) took(item string, dropped bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.takes == nil {
		l.offers, l.takes = make(map[string]string), make(map[string]int)
	}
	if dropped {
		l.dropped++
		return
	}
	l.takes[item]++
}

// Counts returns the offers by outcome, the items taken, the takes that
// dropped an item, and the items taken more than once.
func (l *SimpleLedger) Counts() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]int{"offers_" + putApplied: 0, "offers_" + putUnknown: 0, "offers_" + putFailed: 0,
		"taken": 0, "dropped": l.dropped, "taken_again": 0}
	for _, o := range l.offers {
		out["offers_"+o]++
	}
	for _, n := range l.takes {
		out["taken"]++
		out["taken_again"] += n - 1
	}
	return out
}

// Check returns a violation for every broken promise of the queue (see
// CheckAtMostOnce). Call it once the queue is drained.
func (l *SimpleLedger) Check(at time.Time) []Violation {
	l.mu.Lock()
	details := CheckAtMostOnce(l.offers, l.takes, l.dropped)
	l.mu.Unlock()
	out := make([]Violation, len(details))
	for i, d := range details {
		out[i] = Violation{Kind: "queue", Recipe: l.Name, At: at, Detail: d}
	}
	return out
}

// CheckAtMostOnce checks the at-most-once promise of a drained queue: no
// item is taken twice, nor one whose offer failed or that nobody offered;
// and the items whose offer was applied but that no take returned are no
// more than the takes that dropped an item (a delete whose answer was
// lost drops the item it took, whichever it was).
func CheckAtMostOnce(offers map[string]string, takes map[string]int, dropped int) []string {
	var out []string
	missing := 0
	for _, item := range sortedKeys(offers) {
		n := takes[item]
		switch outcome := offers[item]; {
		case n > 1:
			out = append(out, fmt.Sprintf("item %s: offer %s, but taken %d times", item, outcome, n))
		case outcome == putFailed && n > 0:
			out = append(out, fmt.Sprintf("item %s: offer failed, but taken", item))
		case outcome == putApplied && n == 0:
			missing++
		}
	}
	for _, item := range sortedKeys(takes) {
		if _, ok := offers[item]; !ok {
			out = append(out, fmt.Sprintf("item %s: taken %d times, but no offer of it ended", item, takes[item]))
		}
	}
	if missing > dropped {
		out = append(out, fmt.Sprintf("%d items offered and applied were never taken, but only %d takes dropped an item", missing, dropped))
	}
	return out
}

// SimpleProducer offers items to a Simple queue, one after another, each
// under a name of its own ("<Name>/<n>"), and records each offer's
// outcome.
type SimpleProducer struct {
	Queue  *queue.Simple
	Ledger *SimpleLedger
	Name   string
	Stats  *Stats
}

// Run offers until ctx ends.
func (p *SimpleProducer) Run(ctx context.Context) {
	for n := 1; ctx.Err() == nil; n++ {
		item := fmt.Sprintf("%s/%d", p.Name, n)
		octx, cancel := context.WithTimeout(ctx, acquireTimeout)
		err := p.Queue.Offer(octx, []byte(item))
		cancel()
		p.Ledger.offered(item, err)
		if err != nil && ctx.Err() == nil {
			p.Stats.acquireError("simple queue offer", err)
			pause(ctx, errorPause)
		}
		pause(ctx, putPause)
	}
}

// SimpleConsumer takes the items of a Simple queue until ctx ends, and
// records each in the ledger.
type SimpleConsumer struct {
	Queue  *queue.Simple
	Ledger *SimpleLedger
	Stats  *Stats
}

// Run takes until ctx ends.
func (c *SimpleConsumer) Run(ctx context.Context) {
	for ctx.Err() == nil {
		data, err := c.Queue.Take(ctx)
		switch {
		case err == nil:
			c.Ledger.took(string(data), false)
		case errors.Is(err, queue.ErrOutcomeUnknown):
			c.Ledger.took("", true)
		case ctx.Err() == nil:
			c.Stats.acquireError("simple queue take", err)
			pause(ctx, errorPause)
		}
	}
}

// Drain takes what is left in the queue until a look finds it empty, or
// ctx ends, and records it; it returns the error that stopped it, nil
// once the queue was seen empty.
func (c *SimpleConsumer) Drain(ctx context.Context) error {
	for {
		data, err := c.Queue.Poll(ctx, 0)
		switch {
		case err == nil:
			c.Ledger.took(string(data), false)
		case errors.Is(err, queue.ErrEmpty):
			return nil
		case errors.Is(err, queue.ErrOutcomeUnknown):
			c.Ledger.took("", true)
		case ctx.Err() != nil:
			return err
		default:
			pause(ctx, errorPause)
		}
	}
}
