package reliability_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/internal/zktest"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
	"github.com/zkrecipes/zkrecipes/reliability/internal/chaos"
)

// The drain at the end goes on while items leave the queues: the
// consumers of a long run fall behind the producers under load, and the
// backlog they leave grows with the run, so no fixed time fits every run.
// It ends once no item has left for chaosQueueStall (an item whose lock
// went with an expired session waits for the server to delete it, well
// within it), or after chaosQueueDrainMax whatever its progress.
const (
	chaosQueueStall    = time.Minute
	chaosQueueDrainMax = 15 * time.Minute
)

// chaosQueues are the chaos run's queues (recipes/queue, Curator's
// DistributedQueue with a lock path): a lock-safe one and a transactional
// one, whose effects are nodes written in each item's transaction; and a
// Simple queue (at most once).
type chaosQueues struct {
	root      string
	lockSafe  *chaos.QueueLedger
	tx        *chaos.QueueLedger
	simple    *chaos.SimpleLedger
	runners   []runner
	producers []*framework.Client
}

// A queue of the run: its directory under root and its ledger.
func (cq *chaosQueues) lockSafeDir() string { return cq.root + "/queue" }
func (cq *chaosQueues) txDir() string       { return cq.root + "/txqueue" }
func (cq *chaosQueues) effectsDir() string  { return cq.root + "/txqueue-effects" }
func (cq *chaosQueues) simpleDir() string   { return cq.root + "/simple-queue" }

// startChaosQueues returns the queues' producers and consumers. Each
// producer has a client of its own that rides the proxies of one of the
// run's clients, so that it meets the faults of that client's links, and
// whose only transactions are its puts, so that its observer counts the
// puts' lost answers (the put marker makes them exact, and so invisible).
// The lock-safe queue's producers ride clients 1 and 3, the transactional
// one's 0 and 2; consumers of the first run on clients 0, 2 and 4, of the
// second on 1, 3 and 4.
func startChaosQueues(t *testing.T, root string, clients []*framework.Client, links [][]chaos.Link, lag time.Duration, dial []framework.Option,
	logger *slog.Logger, ledger *chaos.Ledger, stats *chaos.Stats, seed uint64) *chaosQueues {
	cq := &chaosQueues{
		root:     root,
		lockSafe: &chaos.QueueLedger{Name: "lock-safe queue", Clock: ledger.Clock()},
		tx:       &chaos.QueueLedger{Name: "transactional queue", Clock: ledger.Clock()},
	}
	// Persistent, so that an effect's create never fails for want of it.
	_, err := clients[0].Create(t.Context(), cq.effectsDir(), nil, framework.Persistent, framework.WithParents())
	require.NoError(t, err)
	for _, p := range []struct {
		dir    string
		ledger *chaos.QueueLedger
		via    int
	}{{cq.lockSafeDir(), cq.lockSafe, 1}, {cq.lockSafeDir(), cq.lockSafe, 3}, {cq.txDir(), cq.tx, 0}, {cq.txDir(), cq.tx, 2}} {
		lost := &chaos.LostAnswers{}
		c := connectVia(t, links[p.via], lag, dial, logger, lost)
		cq.producers = append(cq.producers, c)
		q, err := queue.New(c, p.dir, queue.StringCodec{}, queue.WithLockPath(p.dir+"-locks"))
		require.NoError(t, err)
		cq.runners = append(cq.runners, &chaos.QueueProducer{
			Queue: q, Ledger: p.ledger, Lost: lost, Name: fmt.Sprintf("go-%d%s", p.via, strings.TrimPrefix(p.dir, root)), Stats: stats,
		})
	}
	for _, i := range []int{0, 2, 4} {
		cq.runners = append(cq.runners, cq.consumer(clients[i], fmt.Sprintf("go-%d", i), false, seed+700+uint64(i)))
	}
	for _, i := range []int{1, 3, 4} {
		cq.runners = append(cq.runners, cq.consumer(clients[i], fmt.Sprintf("go-%d", i), true, seed+750+uint64(i)))
	}
	cq.startSimple(t, clients, stats)
	return cq
}

// startSimple adds the Simple queue's producer, on client 0, and its
// consumers, on clients 2 and 4.
func (cq *chaosQueues) startSimple(t *testing.T, clients []*framework.Client, stats *chaos.Stats) {
	cq.simple = &chaos.SimpleLedger{Name: "simple queue", Clock: cq.lockSafe.Clock}
	for i, c := range []*framework.Client{clients[0], clients[2], clients[4]} {
		s, err := queue.NewSimple(c, cq.simpleDir())
		require.NoError(t, err)
		if i == 0 {
			cq.runners = append(cq.runners, &chaos.SimpleProducer{Queue: s, Ledger: cq.simple, Name: "go-0/simple", Stats: stats})
			continue
		}
		cq.runners = append(cq.runners, &chaos.SimpleConsumer{Queue: s, Ledger: cq.simple, Stats: stats})
	}
}

// consumer returns a consumer of the lock-safe queue, or of the
// transactional one.
func (cq *chaosQueues) consumer(c *framework.Client, name string, tx bool, seed uint64) *chaos.QueueConsumer {
	cn := &chaos.QueueConsumer{
		Client: c, Path: cq.lockSafeDir(), LockPath: cq.lockSafeDir() + "-locks", Ledger: cq.lockSafe, Name: name, Seed: seed,
		LongRun: chaosSessionTimeout + 2*time.Second,
	}
	if tx {
		cn.Path, cn.LockPath, cn.EffectsDir, cn.Ledger = cq.txDir(), cq.txDir()+"-locks", cq.effectsDir(), cq.tx
	}
	return cn
}

// connectVia connects a client through links (one proxy per member) with
// the run's session timeout and lag, the options of dial (TLS), and
// observer.
func connectVia(t *testing.T, links []chaos.Link, lag time.Duration, dial []framework.Option, logger *slog.Logger, observer framework.Observer) *framework.Client {
	var addrs []string
	for _, l := range links {
		addrs = append(addrs, l.(*zktest.Proxy).Addr())
	}
	opts := append([]framework.Option{framework.WithSessionTimeout(chaosSessionTimeout), framework.WithLogger(logger),
		framework.WithServerLag(lag), framework.WithObserver(observer)}, dial...)
	c, err := framework.New(addrs, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, c.WaitConnected(ctx))
	return c
}

// judge drains both queues through observer, once the producers have
// stopped and the faults are over, reads the effects, and adds the counts
// and any violation to the report. It closes the producers' clients.
func (cq *chaosQueues) judge(t *testing.T, observer *framework.Client, report *chaos.Report) {
	for _, c := range cq.producers {
		require.NoError(t, c.Close())
	}
	left, why := cq.drain(t, observer, chaosQueueStall, chaosQueueDrainMax)
	effects := cq.effects(t, observer)
	now := cq.lockSafe.Clock.Now()
	report.LockSafeQueue, report.TxQueue = cq.lockSafe.Counts(), cq.tx.Counts()
	total := 0
	for _, n := range effects {
		total += n
	}
	report.TxQueue["effects"] = total
	report.Violations = append(report.Violations, cq.lockSafe.Check(now)...)
	report.Violations = append(report.Violations, cq.tx.CheckEffects(now, effects)...)
	report.SimpleQueue = cq.simple.Counts()
	report.Violations = append(report.Violations, cq.simple.Check(now)...)
	for dir, n := range left {
		report.Violations = append(report.Violations, chaos.Violation{Kind: "queue", Recipe: "queue", At: now,
			Detail: fmt.Sprintf("%d items left in %s after the drain (%s)", n, dir, why)})
	}
}

// drain runs a quick consumer of each queue on observer until all are
// empty, or no item has left them for stall, or bound; it returns how many
// items each has left and, if any, why it ended.
func (cq *chaosQueues) drain(t *testing.T, observer *framework.Client, stall, bound time.Duration) (map[string]int, string) {
	cq.drainSimple(t, observer, stall)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	for _, cn := range []*chaos.QueueConsumer{cq.consumer(observer, "drain", false, 0), cq.consumer(observer, "drain", true, 0)} {
		cn.Quick, cn.Stats = true, chaos.NewStats()
		go func() { cn.Run(ctx); done <- struct{}{} }() // ends when the drain does
	}
	left, why := cq.waitDrained(t, observer, stall, bound)
	cancel()
	<-done
	<-done
	return left, why
}

// waitDrained waits for the lock-safe and transactional queues to be
// empty while items leave them: until none has for stall, or bound. It
// returns how many items each has left and, if any, why it stopped.
func (cq *chaosQueues) waitDrained(t *testing.T, observer *framework.Client, stall, bound time.Duration) (map[string]int, string) {
	start := time.Now()
	least, progressed := -1, start
	for {
		left, total := map[string]int{}, 0
		for _, dir := range []string{cq.lockSafeDir(), cq.txDir()} {
			if n := len(queueItems(t, observer, dir)); n > 0 {
				left[dir] = n
				total += n
			}
		}
		now := time.Now()
		if least < 0 || total < least {
			least, progressed = total, now
		}
		switch {
		case total == 0:
			return nil, ""
		case now.Sub(progressed) >= stall:
			return left, fmt.Sprintf("none taken for %v, after %v", stall, now.Sub(start).Round(time.Second))
		case now.Sub(start) >= bound:
			return left, fmt.Sprintf("still taking at the bound of %v", bound)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// drainSimple takes what is left in the Simple queue on observer, until
// a look finds it empty, or bound.
func (cq *chaosQueues) drainSimple(t *testing.T, observer *framework.Client, bound time.Duration) {
	s, err := queue.NewSimple(observer, cq.simpleDir())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	drain := &chaos.SimpleConsumer{Queue: s, Ledger: cq.simple, Stats: chaos.NewStats()}
	assert.NoError(t, drain.Drain(ctx), "the simple queue is drained")
}

// queueItems lists the item nodes in dir.
func queueItems(t *testing.T, c *framework.Client, dir string) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	names, _, err := c.Children(ctx, dir)
	require.NoError(t, err)
	var items []string
	for _, n := range names {
		if strings.HasPrefix(n, "queue-") {
			items = append(items, n)
		}
	}
	return items
}

// effects counts the transactional queue's effect nodes by item.
func (cq *chaosQueues) effects(t *testing.T, c *framework.Client) map[string]int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	names, _, err := c.Children(ctx, cq.effectsDir())
	require.NoError(t, err)
	out := make(map[string]int, len(names))
	for _, n := range names {
		data, _, err := c.Get(ctx, cq.effectsDir()+"/"+n)
		require.NoError(t, err)
		out[string(data)]++
	}
	return out
}
