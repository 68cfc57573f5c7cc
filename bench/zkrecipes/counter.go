package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"zkbench/gokit"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/atomicvalue"
)

// The recipe scenarios beyond the anchor harness's locks (bench/peers,
// whose README defines them): they run here (queue.go has the queue's),
// the others in gokit.
var peerScenarios = map[string]func(peerConfig, []*framework.Client) (peerLine, error){
	"counter-contended": counterContended,
	"queue-1to4":        queue1to4,
}

// peerLine is a scenario's JSON line: a peerResult and the scenario's own
// figures.
type peerLine interface{ stalled() bool }

// peerConfig is the harness's command line (every flag is accepted; the
// scenarios here read these).
type peerConfig struct {
	scenario         string
	servers          []string
	clients          int
	duration, warmup time.Duration
	root             string
	sessionTimeout   time.Duration
	variant          string
}

// peerResult is the JSON line of a peer scenario: the harness's fields and
// the scenario's own.
type peerResult struct {
	Impl       string  `json:"impl"`
	Scenario   string  `json:"scenario"`
	Clients    int     `json:"clients"`
	Stalled    bool    `json:"stalled,omitempty"`
	Ops        int     `json:"ops"`
	OpsPerS    float64 `json:"ops_per_s"`
	P50us      float64 `json:"p50_us"`
	P99us      float64 `json:"p99_us"`
	Violations int64   `json:"violations"`
	Errors     int64   `json:"errors"`
	AllOps     int64   `json:"all_ops"`
}

// stalled tells whether workers were still running past the grace.
func (r *peerResult) stalled() bool { return r.Stalled }

// counterResult is counter-contended's line: the increments that other
// writers beat on every try, and the tries (a read and a versioned write
// each) per increment.
type counterResult struct {
	peerResult
	Failed     int64   `json:"failed"`
	TriesPerOp float64 `json:"tries_per_op"`
}

// runPeer runs a peer scenario from the command line, prints its line and
// returns the exit status.
func runPeer(args []string) int {
	cfg, err := parsePeer(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	clients := make([]*framework.Client, 0, cfg.clients)
	for i := range cfg.clients {
		s, err := connect(cfg.servers, cfg.sessionTimeout)
		if err != nil {
			fmt.Fprintf(os.Stderr, "zkrecipes %s: connect session %d: %v\n", cfg.scenario, i, err)
			return 1
		}
		clients = append(clients, s.(session).c)
	}
	res, err := peerScenarios[cfg.scenario](cfg, clients)
	if err != nil {
		fmt.Fprintf(os.Stderr, "zkrecipes %s: %v\n", cfg.scenario, err)
		return 1
	}
	if !res.stalled() { // a stalled run leaves its goroutines in the library
		for _, c := range clients {
			_ = c.Close()
		}
	}
	line, _ := json.Marshal(res)
	fmt.Println(string(line))
	return 0
}

// parsePeer parses the harness's flags.
func parsePeer(args []string) (peerConfig, error) {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	servers := fs.String("servers", "127.0.0.1:22181", "")
	clients := fs.Int("clients", 1, "")
	dur := fs.Float64("duration-s", 8, "")
	warm := fs.Float64("warmup-s", 1, "")
	root := fs.String("root", "/bench/zkrecipes/"+args[0], "")
	sessionMs := fs.Int("session-timeout-ms", int(gokit.SessionTimeout/time.Millisecond), "")
	fs.Int("leases", 3, "")
	fs.Int("cycles", -1, "")
	fs.String("log", "", "")
	fs.Float64("hold-us", 0, "")
	variant := fs.String("variant", "latch", "")
	if err := fs.Parse(args[1:]); err != nil {
		return peerConfig{}, err
	}
	if *clients < 1 {
		return peerConfig{}, fmt.Errorf("--clients %d: want at least 1", *clients)
	}
	return peerConfig{
		scenario: args[0], servers: strings.Split(*servers, ","), clients: *clients,
		duration: time.Duration(*dur * float64(time.Second)), warmup: time.Duration(*warm * float64(time.Second)),
		root: *root, sessionTimeout: time.Duration(*sessionMs) * time.Millisecond, variant: *variant,
	}, nil
}

// counterContended is counter-contended: every client increments one
// atomicvalue.Long at ROOT/counter (the default optimistic retry policy:
// up to 10 retries, 5 ms to 500 ms apart), until warm-up and duration are
// over. An op is an increment that succeeded; one that other writers beat
// on every try is failed. At the end the counter must have risen by
// exactly the increments that succeeded.
func counterContended(cfg peerConfig, clients []*framework.Client) (peerLine, error) {
	ctx := context.Background()
	longs := make([]*atomicvalue.Long, len(clients))
	for i, c := range clients {
		l, err := atomicvalue.NewLong(c, cfg.root+"/counter")
		if err != nil {
			return nil, err
		}
		longs[i] = l
	}
	before, err := longs[0].Get(ctx)
	if err != nil {
		return nil, err
	}
	res := &counterResult{peerResult: peerResult{Impl: "zkrecipes", Scenario: cfg.scenario, Clients: cfg.clients}}
	var failed, tries atomic.Int64
	lats := peerLoop(cfg, len(longs), &res.peerResult, func(w int) (time.Duration, bool, error) {
		start := time.Now()
		r, err := longs[w].Increment(ctx)
		tries.Add(int64(r.Stats.OptimisticTries + r.Stats.PromotedTries))
		if err == nil && !r.Succeeded {
			failed.Add(1)
		}
		return time.Since(start), err == nil && r.Succeeded, err
	})
	res.Failed = failed.Load()
	if res.AllOps > 0 {
		res.TriesPerOp = math.Round(float64(tries.Load())/float64(res.AllOps)*100) / 100
	}
	res.P50us, res.P99us = percentile(lats, 50), percentile(lats, 99)
	if res.Stalled {
		return res, nil
	}
	after, err := longs[0].Get(ctx)
	if err != nil {
		return nil, err
	}
	if after.PreValue-before.PreValue != res.AllOps {
		fmt.Fprintf(os.Stderr, "zkrecipes counter-contended: the counter rose by %d, %d increments succeeded\n",
			after.PreValue-before.PreValue, res.AllOps)
		res.Violations++
	}
	return res, nil
}

// peerLoop runs step on every worker until warm-up and duration are over;
// a step that succeeded (ok) is counted in AllOps, and in Ops with its
// latency when it completes inside the measured window; an error counts
// in Errors and pauses the worker 10 ms. It returns the window's
// latencies.
func peerLoop(cfg peerConfig, workers int, res *peerResult, step func(w int) (time.Duration, bool, error)) []time.Duration {
	start := time.Now()
	mstart, end := start.Add(cfg.warmup), start.Add(cfg.warmup+cfg.duration)
	var (
		mu           sync.Mutex // guards lats: a stalled run reads them while workers may still run
		lats         []time.Duration
		errs, allOps atomic.Int64
		wg           sync.WaitGroup
	)
	for w := range workers {
		wg.Go(func() { // ends after the step that completes past the window
			for {
				lat, ok, err := step(w)
				now := time.Now()
				switch {
				case err != nil:
					errs.Add(1)
					time.Sleep(10 * time.Millisecond)
				case ok:
					allOps.Add(1)
					if !now.Before(mstart) && now.Before(end) {
						mu.Lock()
						lats = append(lats, lat)
						mu.Unlock()
					}
				}
				if !now.Before(end) {
					return
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }() // ends with the workers
	select {
	case <-done:
	case <-time.After(time.Until(end) + gokit.StallGrace):
		res.Stalled = true
	}
	mu.Lock()
	defer mu.Unlock()
	res.Errors, res.AllOps, res.Ops = errs.Load(), allOps.Load(), len(lats)
	res.OpsPerS = round1(float64(len(lats)) / cfg.duration.Seconds())
	return slices.Clone(lats)
}

// percentile is the nearest-rank percentile p of lats, in microseconds.
func percentile(lats []time.Duration, p float64) float64 {
	if len(lats) == 0 {
		return 0
	}
	s := slices.Clone(lats)
	slices.Sort(s)
	i := max(0, int(math.Ceil(p/100*float64(len(s))))-1)
	return round1(float64(s[i]) / float64(time.Microsecond))
}

// round1 rounds x to one decimal.
func round1(x float64) float64 { return math.Round(x*10) / 10 }
