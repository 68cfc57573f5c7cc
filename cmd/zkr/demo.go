package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/mutex"
	"github.com/zkrecipes/zkrecipes/recipes/semaphore"
	"github.com/zkrecipes/zkrecipes/zktesting"
)

// demoConfig is what the demo runs.
type demoConfig struct {
	servers                 []string // empty: start a local server
	workers, rounds, leases int
}

// demoRoot is where the demo's recipes live.
const demoRoot = "/zkr-demo"

// demo runs the mutex and semaphore rounds and reports what they kept.
func demo(ctx context.Context, cfg demoConfig, out io.Writer) error {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	if len(cfg.servers) == 0 {
		fmt.Fprintln(out, "starting a local ZooKeeper server...")
		server, err := zktesting.Start(ctx, zktesting.WithLogger(quiet))
		if err != nil {
			return err
		}
		defer server.Close()
		cfg.servers = []string{server.Addr()}
	}
	clients := make([]*framework.Client, cfg.workers)
	for i := range clients {
		c, err := framework.Connect(ctx, cfg.servers, framework.WithLogger(quiet), framework.WithNamespace(demoRoot))
		if err != nil {
			return err
		}
		defer c.Close()
		clients[i] = c
	}
	fmt.Fprintf(out, "%d workers connected to %v, each with its own session\n", cfg.workers, cfg.servers)
	path := fmt.Sprintf("/run-%d", time.Now().UnixNano())
	if err := mutexRounds(ctx, clients, path+"/mutex", cfg.rounds, out); err != nil {
		return err
	}
	if err := semaphoreRounds(ctx, clients, path+"/semaphore", cfg, out); err != nil {
		return err
	}
	left := 0
	for _, dir := range []string{"/mutex", "/semaphore/locks", "/semaphore/leases"} {
		children, _, err := clients[0].Children(ctx, path+dir)
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			return err
		}
		left += len(children)
	}
	fmt.Fprintf(out, "nodes left behind: %d\n", left)
	return nil
}

// mutexRounds lets every worker take the mutex rounds times, and checks
// that holders never overlap and fencing tokens only grow.
func mutexRounds(ctx context.Context, clients []*framework.Client, path string, rounds int, out io.Writer) error {
	var mu sync.Mutex // guards lastToken and the check
	var lastToken int64
	var holders, overlaps, regressions atomic.Int64
	err := forEachWorker(clients, func(i int, c *framework.Client) error {
		m, err := mutex.New(c, path)
		if err != nil {
			return err
		}
		for range rounds {
			hold, err := m.AcquireTimeout(ctx, time.Minute)
			if err != nil {
				return err
			}
			if holders.Add(1) != 1 {
				overlaps.Add(1)
			}
			token, err := hold.FencingToken(ctx)
			if err != nil {
				return err
			}
			mu.Lock()
			if token <= lastToken {
				regressions.Add(1)
			}
			lastToken = token
			mu.Unlock()
			time.Sleep(time.Millisecond) // the guarded work
			holders.Add(-1)
			if err := hold.Release(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "mutex: %d acquisitions, overlapping holders: %d, fencing tokens out of order: %d\n",
		len(clients)*rounds, overlaps.Load(), regressions.Load())
	return nil
}

// semaphoreRounds lets every worker take a lease rounds times, and records
// the most leases held at once.
func semaphoreRounds(ctx context.Context, clients []*framework.Client, path string, cfg demoConfig, out io.Writer) error {
	var holders, peak atomic.Int64
	err := forEachWorker(clients, func(i int, c *framework.Client) error {
		s, err := semaphore.New(c, path, cfg.leases, semaphore.WithData(fmt.Appendf(nil, "worker-%d", i)))
		if err != nil {
			return err
		}
		for range cfg.rounds {
			lease, err := s.AcquireTimeout(ctx, time.Minute)
			if err != nil {
				return err
			}
			n := holders.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(20 * time.Millisecond) // the count-limited work
			holders.Add(-1)
			if err := lease.Return(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "semaphore: %d leases taken, at most %d held at once (limit %d)\n",
		len(clients)*cfg.rounds, peak.Load(), cfg.leases)
	return nil
}

// forEachWorker runs fn for every client on a goroutine of its own and
// returns the first error.
func forEachWorker(clients []*framework.Client, fn func(i int, c *framework.Client) error) error {
	errs := make(chan error, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() { errs <- fn(i, c) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
