package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/queue"
)

// queueWindow is how many items the producer of queue-1to4 keeps in the
// queue at most: it waits (in the process, no request) while as many are
// put and not taken, so that the queue stays short for every library.
const queueWindow = 64

// queueDrain bounds the wait, after the window, for the consumers to take
// what is left.
const queueDrain = 60 * time.Second

// queueResult is queue-1to4's line: the variant, the items put, and those
// lost (put, never taken) and taken twice; violations are their sum.
type queueResult struct {
	peerResult
	Variant    string `json:"variant"`
	Put        int64  `json:"put"`
	Lost       int64  `json:"lost"`
	TakenTwice int64  `json:"taken_twice"`
}

// queue1to4 is queue-1to4: client 0 puts items into ROOT/queue one after
// another (recipes/queue's Queue), the others consume them, each with a
// consumer of its own, until warm-up and duration are over; then the
// producer stops and the consumers take what is left. --variant plain:
// no lock path (an item is deleted, then handed over: at most once);
// locking: the lock path ROOT/locks (lock-safe: at least once). An op is
// an item taken; its latency is from the put's call to the consumer's
// function.
func queue1to4(cfg peerConfig, clients []*framework.Client) (peerLine, error) {
	var opts []queue.Option
	switch cfg.variant {
	case "plain":
	case "locking":
		opts = append(opts, queue.WithLockPath(cfg.root+"/locks"))
	default:
		return nil, fmt.Errorf("--variant %q: want plain or locking", cfg.variant)
	}
	if len(clients) < 2 {
		return nil, fmt.Errorf("--clients %d: want a producer and a consumer at least", len(clients))
	}
	res := &queueResult{peerResult: peerResult{Impl: "zkrecipes", Scenario: cfg.scenario, Clients: cfg.clients}, Variant: cfg.variant}
	start := time.Now()
	t := newItemTally(start.Add(cfg.warmup), start.Add(cfg.warmup+cfg.duration))
	path := cfg.root + "/queue"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var consumers []*queue.Consumer[[]byte]
	for _, c := range clients[1:] {
		q, err := queue.New(c, path, queue.BytesCodec{}, opts...)
		if err != nil {
			return nil, err
		}
		cn, err := q.NewConsumer(func(_ context.Context, item []byte) error { t.taken(string(item)); return nil })
		if err == nil {
			err = cn.Start(ctx)
		}
		if err != nil {
			return nil, err
		}
		consumers = append(consumers, cn)
	}
	producer, err := queue.New(clients[0], path, queue.BytesCodec{}, opts...)
	if err != nil {
		return nil, err
	}
	t.produce(func(item string) error { return producer.Put(ctx, []byte(item)) })
	res.Stalled = !t.drained(queueDrain)
	_ = producer.Close(ctx)
	for _, cn := range consumers {
		_ = cn.Close(ctx)
	}
	t.fill(res, cfg.duration)
	return res, nil
}

// itemTally follows queue-1to4's items: when each was put, how often it
// was taken, and the latencies of those taken in the window.
type itemTally struct {
	mstart, end time.Time
	room        chan struct{} // a slot per item put and not taken yet

	mu     sync.Mutex // guards the fields below
	putAt  map[string]time.Time
	takes  map[string]int
	lats   []time.Duration
	errors int64
	left   chan struct{} // closed once every item put is taken, after the window
	done   bool          // the producer has stopped
}

func newItemTally(mstart, end time.Time) *itemTally {
	return &itemTally{
		mstart: mstart, end: end, room: make(chan struct{}, queueWindow),
		putAt: make(map[string]time.Time), takes: make(map[string]int), left: make(chan struct{}),
	}
}

// produce puts items until the window ends, at most queueWindow in the
// queue at a time. A failed put counts as an error and frees its slot.
func (t *itemTally) produce(put func(item string) error) {
	for n := 0; time.Now().Before(t.end); n++ {
		select {
		case t.room <- struct{}{}:
		case <-time.After(time.Until(t.end)):
			continue // the window is over while the consumers lag
		}
		item := fmt.Sprintf("item-%07d", n)
		t.mu.Lock()
		t.putAt[item] = time.Now()
		t.mu.Unlock()
		if err := put(item); err != nil {
			fmt.Fprintf(os.Stderr, "zkrecipes queue-1to4: put: %v\n", err)
			t.mu.Lock()
			delete(t.putAt, item)
			t.errors++
			t.mu.Unlock()
			<-t.room
			time.Sleep(10 * time.Millisecond)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done = true
	t.checkDrained()
}

// taken records an item a consumer was handed.
func (t *itemTally) taken(item string) {
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.takes[item]++
	at, ok := t.putAt[item]
	if t.takes[item] > 1 || !ok {
		return // taken again, or its put failed (and may have run)
	}
	<-t.room // its slot, held since before its put
	if !now.Before(t.mstart) && now.Before(t.end) {
		t.lats = append(t.lats, now.Sub(at))
	}
	t.checkDrained()
}

// checkDrained closes left once the producer has stopped and every item
// is taken. t.mu must be held.
func (t *itemTally) checkDrained() {
	if t.done && len(t.room) == 0 {
		select {
		case <-t.left:
		default:
			close(t.left)
		}
	}
}

// drained waits at most d for the consumers to take what is left.
func (t *itemTally) drained(d time.Duration) bool {
	select {
	case <-t.left:
		return true
	case <-time.After(d):
		return false
	}
}

// fill sets the result's figures.
func (t *itemTally) fill(res *queueResult, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	res.Ops, res.OpsPerS = len(t.lats), round1(float64(len(t.lats))/d.Seconds())
	res.P50us, res.P99us = percentile(t.lats, 50), percentile(t.lats, 99)
	res.Errors, res.Put = t.errors, int64(len(t.putAt))
	for item := range t.putAt {
		switch n := t.takes[item]; {
		case n == 0:
			res.Lost++
		case n > 1:
			res.TakenTwice++
		}
	}
	res.AllOps = int64(len(t.takes))
	res.Violations = res.Lost + res.TakenTwice
}
