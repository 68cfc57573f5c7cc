// Command zkrecipes-cache-bench runs the bench/cache tree-cache scenarios on
// zkrecipes' recipes/cache, beside Curator's CuratorCache and Kazoo's
// TreeCache. Line protocol and output per ../README.md; mirrors
// ../curator/CuratorCacheBench.java and ../kazoo/kazoo_cache_bench.py
// scenario by scenario: keep the three in step.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes/cache"
)

// monoNS is CLOCK_MONOTONIC in ns, the clock of the writer's stamps and of
// the other drivers (Java's System.nanoTime, Python's time.monotonic_ns).
func monoNS() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic(err)
	}
	return ts.Nano()
}

var outMu sync.Mutex

func say(format string, args ...any) {
	outMu.Lock()
	defer outMu.Unlock()
	fmt.Fprintf(os.Stdout, format+"\n", args...)
}

func waitFor(in *bufio.Scanner, word string) {
	for in.Scan() {
		if strings.TrimSpace(in.Text()) == word {
			return
		}
	}
}

// pct is the nearest-rank percentile of sorted ns, in ms.
func pct(sorted []int64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := max(0, int(math.Ceil(p/100*float64(len(sorted))))-1)
	return ms(sorted[i])
}

func ms(ns int64) float64 { return math.Round(float64(ns)/1e4) / 100 }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "zkrecipes-cache-bench:", err)
	os.Exit(1)
}

func main() {
	if len(os.Args) < 2 || strings.HasPrefix(os.Args[1], "-") {
		fmt.Fprintln(os.Stderr, "usage: zkrecipes-cache-bench SCENARIO --servers H:P --root PATH --session-timeout-ms MS [--expect N]")
		os.Exit(2)
	}
	scenario := os.Args[1]
	fs := flag.NewFlagSet(scenario, flag.ExitOnError)
	servers := fs.String("servers", "127.0.0.1:22182", "connect string")
	root := fs.String("root", "/cachebench/tree", "cache root")
	sessionMS := fs.Int("session-timeout-ms", 30000, "session timeout")
	expect := fs.Int("expect", 10, "cache-reconnect: changed nodes to see")
	_ = fs.Parse(os.Args[2:])

	res := map[string]any{"impl": "zkrecipes", "scenario": scenario}
	switch scenario {
	case "cache-load", "cache-reconnect", "cache-churn", "heap":
	default:
		res["na"] = true
		printJSON(res)
		return
	}
	in := bufio.NewScanner(os.Stdin)

	timeout := time.Duration(*sessionMS) * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	client, err := framework.Connect(ctx, strings.Split(*servers, ","), framework.WithSessionTimeout(timeout), framework.WithLogger(quiet))
	cancel()
	if err != nil {
		fail(err)
	}
	// cache-reconnect: when the connection is back (the driver subtracts the proxy's OPEN).
	client.AddListener(func(ch framework.StateChange) {
		if ch.State == framework.Reconnected {
			say("RECONNECTED %d", monoNS())
		}
	})
	say("CONNECTED")
	waitFor(in, "start")

	c, err := cache.New(client, *root)
	if err != nil {
		fail(err)
	}
	// Listeners are called serially, in order: no locking needed among them;
	// the main goroutine reads the state after the stop line, under mu.
	var (
		mu          sync.Mutex
		isInit      bool
		initNS      int64
		created     int64
		after       int64
		bad         int64
		changed     = map[string]bool{}
		seenPrinted bool
		lags        []int64
		initialized = make(chan struct{})
	)
	heapMode := scenario == "heap"
	c.AddListener(func(ev cache.Event) {
		now := monoNS()
		mu.Lock()
		defer mu.Unlock()
		if ev.Type == cache.Initialized {
			if !isInit {
				isInit, initNS = true, now
				close(initialized)
			}
			return
		}
		if !isInit {
			if ev.Type == cache.Created {
				created++
			}
			return
		}
		after++
		if heapMode || ev.Type != cache.Changed {
			return
		}
		v := ev.Entry.Data
		if strings.HasPrefix(string(v), "changed-") {
			changed[ev.Path] = true
			if len(changed) >= *expect && !seenPrinted {
				seenPrinted = true
				say("SEEN %d", now)
			}
			return
		}
		if sent, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			lags = append(lags, now-sent)
		} else {
			bad++
		}
	})

	var before runtime.MemStats
	if heapMode {
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&before)
	}
	t0 := monoNS()
	// Start runs the cache in the background for as long as its ctx lives;
	// AwaitInitialized waits for the first complete load.
	if err := c.Start(context.Background()); err != nil {
		fail(err)
	}
	actx, acancel := context.WithTimeout(context.Background(), 300*time.Second)
	err = c.AwaitInitialized(actx)
	acancel()
	if err != nil {
		fail(err)
	}
	select {
	case <-initialized:
	case <-time.After(300 * time.Second):
		fail(fmt.Errorf("no Initialized event"))
	}
	mu.Lock()
	res["load_ms"] = ms(initNS - t0)
	res["created"] = created
	mu.Unlock()
	res["cached"] = c.Len()
	if heapMode {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		hb := int64(m.HeapAlloc) - int64(before.HeapAlloc)
		res["heap_bytes"] = hb
		res["heap_mb"] = math.Round(float64(hb)/1e5) / 10
		res["heap_objects"] = int64(m.HeapObjects) - int64(before.HeapObjects)
	}
	say("INITIALIZED")

	waitFor(in, "stop")
	mu.Lock()
	res["events_after_init"] = after
	switch scenario {
	case "cache-reconnect":
		res["seen"] = len(changed)
	case "cache-churn":
		s := append([]int64(nil), lags...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		res["events"] = len(s)
		res["bad_values"] = bad
		res["lag_p50_ms"] = pct(s, 50)
		res["lag_p99_ms"] = pct(s, 99)
		if len(s) > 0 {
			res["lag_max_ms"] = ms(s[len(s)-1])
		} else {
			res["lag_max_ms"] = 0.0
		}
	}
	mu.Unlock()
	printJSON(res)
	runtime.KeepAlive(c)
	cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
	_ = c.Close(cctx)
	ccancel()
	_ = client.Close()
}

func printJSON(m map[string]any) {
	b, _ := json.Marshal(m)
	say("%s", b)
}
