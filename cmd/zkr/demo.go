package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// demoConnectTimeout bounds the wait for the workers' sessions.
const demoConnectTimeout = 10 * time.Second

// demoConfig is what the demo runs.
type demoConfig struct {
	servers        []string // empty: start a local server
	workers        int
	rounds         int // acquisitions per worker and recipe
	leases         int
	work           time.Duration // the mutex holder's and a writer's work; a reader's is twice as long, a lease holder's three times
	sessionTimeout time.Duration
	kill           bool // kill a holder's session midway
}

// demoHelp is the longer help of `zkr demo`.
const demoHelp = `Starts a local ZooKeeper (unless --servers names one; $ZK_SERVERS is not
read), then lets workers, each with a session of its own, take a mutex in
turn, share a semaphore, and read and write under a read/write lock (one
acquisition in four writes). Midway through each, the demo cuts one holder
off from ZooKeeper: the output shows the holder told of its loss, then the
server expiring its session and the next waiter taking its place. A
summary row per kind of hold ends it: acquisitions, waits, the most holders
at once against the limit, fencing tokens in order (a hold's token is above
those of every hold it must follow), violations (should be 0) and nodes
left behind (should be 0). It stops the server it started and removes
its files, also on Ctrl-C.`

// setupDemo is `zkr demo`.
func setupDemo(fs *flag.FlagSet, _ *connFlags) runFunc {
	servers := fs.String("servers", "", "run against these `host:port,...` (default: start a local ZooKeeper, and stop it at the end)")
	cfg := demoConfig{}
	fs.IntVar(&cfg.workers, "workers", 5, "workers, each with its own session")
	fs.IntVar(&cfg.rounds, "rounds", 10, "acquisitions per worker and recipe")
	fs.IntVar(&cfg.leases, "leases", 3, "the semaphore's leases")
	fs.DurationVar(&cfg.work, "work", 60*time.Millisecond, "how long a mutex holder or a writer works (a reader: twice as long, a lease holder: three times)")
	fs.DurationVar(&cfg.sessionTimeout, "session-timeout", 2*time.Second, "the workers' session timeout: how long a killed holder blocks the others")
	fs.BoolVar(&cfg.kill, "kill", true, "kill a holder's session midway through each recipe")
	return func(ctx context.Context, e *env, _, _ []string) error {
		if cfg.workers < 2 || cfg.rounds < 1 || cfg.leases < 1 || cfg.work < 0 || cfg.sessionTimeout <= 0 {
			return usagef("demo needs --workers of at least 2, --rounds and --leases of at least 1, and positive durations")
		}
		if *servers != "" {
			cfg.servers = strings.Split(*servers, ",")
		}
		ctx, stop := cancelOnSignal(ctx, e)
		defer stop()
		return interrupted(ctx, demo(ctx, cfg, e))
	}
}

// demo starts the server if need be, runs the mutex, the semaphore and the
// read/write lock scenarios, and prints their summary.
func demo(ctx context.Context, cfg demoConfig, e *env) error {
	quiet := slog.New(slog.DiscardHandler)
	out := e.stdout
	if len(cfg.servers) == 0 {
		fmt.Fprintln(out, "Starting a local ZooKeeper (the installed one, on a free loopback port)...")
		server, err := zktesting.Start(ctx, zktesting.WithLogger(quiet))
		if err != nil {
			return fmt.Errorf("start ZooKeeper: %w", err)
		}
		defer func() {
			_ = server.Close()
			fmt.Fprintln(out, "Stopped the local ZooKeeper and removed its files.")
		}()
		cfg.servers = []string{server.Addr()}
	}
	root := fmt.Sprintf("/zkr-demo/run-%d", time.Now().UnixNano())
	workers, err := connectWorkers(ctx, cfg, root, quiet, out)
	for _, w := range workers {
		defer w.client.Close()
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Each worker has a session of its own (timeout %v); the recipes live under %s.\n\n",
		cfg.sessionTimeout, root)
	results, err := runScenarios(ctx, cfg, e, workers)
	if err != nil {
		return err
	}
	fmt.Fprintln(out)
	printSummary(out, results)
	return nil
}

// connectWorkers gives each worker a client of its own under root, and
// waits for their sessions. The workers it returns, also with an error,
// are the caller's to close.
func connectWorkers(ctx context.Context, cfg demoConfig, root string, logger *slog.Logger, out io.Writer) ([]*demoWorker, error) {
	workers := make([]*demoWorker, 0, cfg.workers)
	for i := range cfg.workers {
		faults := zktesting.NewFaults()
		c, err := framework.New(cfg.servers, framework.WithLogger(logger), framework.WithNamespace(root),
			framework.WithSessionTimeout(cfg.sessionTimeout),
			framework.WithZKOptions(zk.WithDialer(faults.Dial)))
		if err != nil {
			return workers, err
		}
		workers = append(workers, &demoWorker{id: i + 1, client: c, faults: faults})
	}
	fmt.Fprintf(out, "Connecting %d workers to %s...\n", cfg.workers, strings.Join(cfg.servers, ","))
	cctx, cancel := context.WithTimeout(ctx, demoConnectTimeout)
	defer cancel()
	for _, w := range workers {
		if err := w.client.WaitConnected(cctx); err != nil {
			if ctx.Err() != nil {
				return workers, ctx.Err()
			}
			return workers, fmt.Errorf("%w: no session with %s within %v", errUnreachable, strings.Join(cfg.servers, ","), demoConnectTimeout)
		}
	}
	return workers, nil
}

// runScenarios runs the demo's recipes one after another, and counts the
// nodes each left behind.
func runScenarios(ctx context.Context, cfg demoConfig, e *env, workers []*demoWorker) ([]*tracker, error) {
	var results []*tracker
	for _, r := range []demoRecipe{mutexRecipe(cfg), semaphoreRecipe(cfg), rwlockRecipe(cfg)} {
		t, err := runScenario(ctx, cfg, e, workers, r)
		if err != nil {
			return nil, err
		}
		for _, k := range r.kinds {
			if t.stats[k].nodesLeft, err = nodesLeft(ctx, workers[0].client, k); err != nil {
				return nil, err
			}
		}
		results = append(results, t)
	}
	return results, nil
}

// demoWorker is one worker: a client with a session of its own, and the
// faults of its connection, through which the demo kills its session.
type demoWorker struct {
	id     int
	client *framework.Client
	faults *zktesting.Faults
}

// nodesLeft counts the nodes of kind still in its directories, waiting a
// little for clean-ups still under way.
func nodesLeft(ctx context.Context, c *framework.Client, kind *demoKind) (int, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := 0
		for _, dir := range kind.dirs {
			children, _, err := c.Children(ctx, dir)
			if err != nil && !errors.Is(err, zk.ErrNoNode) {
				return 0, err
			}
			for _, name := range children {
				if strings.Contains(name, kind.marker) {
					left++
				}
			}
		}
		if left == 0 || time.Now().After(deadline) {
			return left, nil
		}
		select {
		case <-ctx.Done():
			return left, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// runScenario runs one recipe with every worker, kills a holder's session
// midway, and returns what it recorded.
func runScenario(ctx context.Context, cfg demoConfig, e *env, workers []*demoWorker, r demoRecipe) (*tracker, error) {
	t := newTracker(r, cfg.workers*cfg.rounds, e.stdout)
	fmt.Fprintf(e.stdout, "== %s: %d workers, %d acquisitions each, %s\n", r.name, cfg.workers, cfg.rounds, r.intro)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	progressDone := t.showProgress(ctx, e.terminal)
	var killer sync.WaitGroup
	if cfg.kill {
		// Ends after the kill, or when the scenario ends.
		killer.Go(func() { t.killMidway(ctx, workers, strings.Join(cfg.servers, ","), cfg.sessionTimeout) })
	}
	err := forEachWorker(workers, func(w *demoWorker) error {
		acquire, err := r.acquirer(w)
		if err != nil {
			return err
		}
		for n := range cfg.rounds {
			if err := t.round(ctx, w, acquire, n); err != nil {
				return err
			}
		}
		return nil
	})
	cancel()
	killer.Wait()
	<-progressDone
	return t, err
}

// forEachWorker runs fn for every worker on a goroutine of its own and
// returns the first error.
func forEachWorker(workers []*demoWorker, fn func(w *demoWorker) error) error {
	errs := make(chan error, len(workers))
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() { errs <- fn(w) }) // ends when the worker's rounds do
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return errors.Join(all...)
}
