package chaos

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zkpath"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

// Timing of the queues' producers and consumers.
const (
	putPause     = 50 * time.Millisecond // between two puts of a producer
	failEvery    = 25                    // one run in this many fails on purpose
	longRunEvery = 200                   // one run in this many lasts QueueConsumer.LongRun
)

// errOnPurpose is the error of a run that fails on purpose.
var errOnPurpose = errors.New("chaos: the consumer fails on purpose")

// LostAnswers is a client's Observer that counts the transactions whose
// answer was lost (a try that ended with ErrOutcomeUnknown). On a client
// that sends no transaction but a queue's puts, it counts the puts' lost
// answers, which the put marker otherwise hides.
type LostAnswers struct {
	framework.NoopObserver
	n atomic.Int64
}

// OnRequest counts a transaction's try whose answer was lost.
func (l *LostAnswers) OnRequest(ev framework.RequestEvent) {
	if ev.Op == "multi" && errors.Is(ev.Err, framework.ErrOutcomeUnknown) {
		l.n.Add(1)
	}
}

// Count returns the tries counted so far.
func (l *LostAnswers) Count() int64 { return l.n.Load() }

// QueueProducer puts items into a queue, one after another, each under a
// name of its own ("<Name>/<n>"), and records each put's outcome in a
// QueueLedger. Lost, the observer of the queue's client, tells whether a
// try of the put lost its answer.
type QueueProducer struct {
	Queue  *queue.Queue[string]
	Ledger *QueueLedger
	Lost   *LostAnswers
	Name   string
	Stats  *Stats
}

// Run puts until ctx ends, then closes the queue as a producer, which
// waits for a put still on its way and deletes the put marker.
func (p *QueueProducer) Run(ctx context.Context) {
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseBound)
		defer cancel()
		if err := p.Queue.Close(cctx); err != nil {
			p.Stats.releaseError("queue put", err)
		}
	}()
	for n := 1; ctx.Err() == nil; n++ {
		item := fmt.Sprintf("%s/%d", p.Name, n)
		// A put that ctx ended goes on in the background: a lost answer of
		// it may be counted with the next put.
		lost := p.Lost.Count()
		pctx, cancel := context.WithTimeout(ctx, acquireTimeout)
		err := p.Queue.Put(pctx, item)
		cancel()
		p.Ledger.put(item, err, p.Lost.Count() > lost)
		if err != nil && ctx.Err() == nil {
			p.Stats.acquireError("queue put", err)
			pause(ctx, errorPause)
		}
		pause(ctx, putPause)
	}
}

// QueueConsumer takes the items of a queue on one client, in the lock-safe
// mode, or in the transactional mode when EffectsDir is set, and records
// every run of its function in a QueueLedger. A run works on its item for
// a moment, now and then for seconds so that faults land in it, one in
// longRunEvery for LongRun, and one in failEvery fails on purpose, which
// gives the item back. A transactional run's effect is a
// persistent-sequential node in EffectsDir holding the item, created in
// the item's transaction.
type QueueConsumer struct {
	Client     *framework.Client
	Path       string
	LockPath   string
	EffectsDir string
	Ledger     *QueueLedger
	Name       string // names the consumer in the ledger
	Stats      *Stats
	Seed       uint64
	// LongRun is how long the longest runs work: longer than the session
	// timeout, so that a partition can take the item's lock from under a
	// run (the session's lease ends the lock before the server can give
	// the item to another consumer). 0: none.
	LongRun time.Duration
	// Quick runs without work time and failures (the drain at the end).
	Quick bool

	mu  sync.Mutex // guards rnd
	rnd *rand.Rand
}

// Run takes items until ctx ends, and returns once the consumer has
// stopped.
func (c *QueueConsumer) Run(ctx context.Context) {
	c.rnd = rand.New(rand.NewPCG(c.Seed, 0x9e))
	label := "queue consumer"
	q, err := queue.New(c.Client, c.Path, queue.StringCodec{}, queue.WithLockPath(c.LockPath),
		queue.WithLogger(slog.New(notTakenHandler{ledger: c.Ledger, consumer: c.Name})))
	if err != nil {
		c.Stats.acquireError(label, err)
		return
	}
	var cn *queue.Consumer[string]
	if c.EffectsDir != "" {
		cn, err = q.NewTxConsumer(func(fctx context.Context, item string) ([]framework.Op, error) {
			if err := c.work(ctx, fctx, item); err != nil {
				return nil, err
			}
			return []framework.Op{framework.CreateOp(zkpath.Join(c.EffectsDir, "e-"), []byte(item), framework.PersistentSequential)}, nil
		})
	} else {
		cn, err = q.NewConsumer(func(fctx context.Context, item string) error { return c.work(ctx, fctx, item) })
	}
	if err == nil {
		err = cn.Start(ctx)
	}
	if err != nil {
		c.Stats.acquireError(label, err)
		return
	}
	<-cn.Done()
	if err := cn.Err(); err != nil && ctx.Err() == nil {
		c.Stats.acquireError(label, err) // stopped on its own
	}
}

// work is one run of the function on item: ctx is the run's, fctx the
// function's, which also ends when the item's lock goes with its session.
func (c *QueueConsumer) work(ctx, fctx context.Context, item string) error {
	r := c.Ledger.begin(item, c.Name, c.Client.Session())
	hold, fail := c.draw()
	if fail {
		c.Ledger.end(r, runFailed)
		return errOnPurpose
	}
	pause(fctx, hold)
	if err := fctx.Err(); err != nil {
		outcome := runAbandoned
		if ctx.Err() != nil {
			outcome = runStopped
		}
		c.Ledger.end(r, outcome)
		return err // the item is left as it was
	}
	c.Ledger.end(r, runDone)
	return nil
}

// draw returns how long the next run works, and whether it fails.
func (c *QueueConsumer) draw() (time.Duration, bool) {
	if c.Quick {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	hold := workTime(c.rnd)
	if c.LongRun > 0 && c.rnd.IntN(longRunEvery) == 0 {
		hold = c.LongRun
	}
	return hold, c.rnd.IntN(failEvery) == 0
}

// notTakenHandler is a consumer's slog.Handler: it tells the ledger when
// the consumer says it did not take the item of its latest run ("queue
// item not taken": the closing transaction failed, and the item goes to
// the next consumer), and drops every record.
type notTakenHandler struct {
	ledger   *QueueLedger
	consumer string
}

// notTakenMessage is what recipes/queue logs when an item's closing
// transaction failed. Should it change, runs that it excuses become
// violations: the check fails loudly, never quietly.
const notTakenMessage = "queue item not taken"

// Enabled takes warnings, the level of notTakenMessage.
func (h notTakenHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

// Handle tells the ledger of notTakenMessage.
func (h notTakenHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Message == notTakenMessage {
		h.ledger.notTaken(h.consumer)
	}
	return nil
}

// WithAttrs returns h: the records' attributes are not kept.
func (h notTakenHandler) WithAttrs([]slog.Attr) slog.Handler { return h }

// WithGroup returns h.
func (h notTakenHandler) WithGroup(string) slog.Handler { return h }
