// Command cachedriver runs the tree-cache scenarios of bench/cache against
// one local ZooKeeper (started by ../run.sh) for every implementation
// folder given, appends one JSON line per run to a .jsonl and prints
// tables. `cachedriver report FILE...` prints the medians of several runs.
// See ../README.md for the scenarios and the implementation protocol.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

type config struct {
	port                   int
	impls, scenarios       []string
	heapImpls              []string
	out, logPath, proxy    string
	fanout, children, size int
	sessionMS              int
	cutS                   float64
	changes                int
	churnRate, churnKeys   int
	churnS                 float64
	heapSizes              []int
	settle                 time.Duration
	meta                   map[string]any
	zk                     *zk.Conn
	logw                   io.Writer
	outw                   *os.File
}

const (
	treeRoot = "/cachebench/tree"
	bigRoot  = "/cachebench/big"
)

var allScenarios = []string{"cache-load", "cache-reconnect", "cache-churn", "heap"}

func main() {
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	if len(os.Args) > 1 && os.Args[1] == "report" {
		if err := report(os.Stdout, os.Args[2:]); err != nil {
			log.Fatal(err)
		}
		return
	}
	var c config
	var impls, scen, heapImpls, heapSizes string
	flag.IntVar(&c.port, "port", 22182, "ZooKeeper client port on 127.0.0.1")
	flag.StringVar(&impls, "impls", "", "implementation folders, space-separated (each has a run script)")
	flag.StringVar(&scen, "scenarios", strings.Join(allScenarios, " "), "scenarios to run, in this order")
	flag.StringVar(&heapImpls, "heap-impls", "curator kazoo zkrecipes", "implementations (folder base names) that run the heap scenario")
	flag.StringVar(&c.out, "out", "", "results .jsonl (appended)")
	flag.StringVar(&c.logPath, "log", "", "stderr of the implementations")
	flag.StringVar(&c.proxy, "proxy", "", "cutproxy binary")
	flag.IntVar(&c.fanout, "fanout", 100, "parents under the cache root")
	flag.IntVar(&c.children, "children", 100, "children per parent")
	flag.IntVar(&c.size, "value-bytes", 100, "bytes per node value")
	flag.IntVar(&c.sessionMS, "session-timeout-ms", 30000, "session timeout of every client")
	flag.Float64Var(&c.cutS, "cut-s", 5, "cache-reconnect: seconds the proxy refuses connections")
	flag.IntVar(&c.changes, "changes", 10, "cache-reconnect: nodes changed during the cut")
	flag.IntVar(&c.churnRate, "churn-rate", 1000, "cache-churn: setData per second")
	flag.Float64Var(&c.churnS, "churn-s", 10, "cache-churn: seconds of writes")
	flag.IntVar(&c.churnKeys, "churn-keys", 1000, "cache-churn: distinct nodes written, round robin")
	flag.StringVar(&heapSizes, "heap-sizes", "10000 100000", "heap: leaf counts (100 children per parent)")
	flag.DurationVar(&c.settle, "settle", 3*time.Second, "cache-reconnect: extra wait after the changes were seen, for reqs_settled")
	flag.Parse()
	c.impls = strings.Fields(impls)
	c.scenarios = strings.Fields(scen)
	c.heapImpls = strings.Fields(heapImpls)
	for _, s := range strings.Fields(heapSizes) {
		n, err := strconv.Atoi(s)
		if err != nil || n%100 != 0 || n <= 0 {
			log.Fatalf("bad heap size %q (a multiple of 100)", s)
		}
		c.heapSizes = append(c.heapSizes, n)
	}
	for _, s := range c.scenarios {
		if !contains(allScenarios, s) {
			log.Fatalf("unknown scenario %s (known: %s)", s, strings.Join(allScenarios, " "))
		}
	}
	if len(c.impls) == 0 || c.out == "" {
		log.Fatal("need -impls and -out")
	}
	if err := c.run(); err != nil {
		log.Fatal(err)
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func (c *config) addr() string { return fmt.Sprintf("127.0.0.1:%d", c.port) }

func (c *config) run() error {
	var err error
	if c.outw, err = os.OpenFile(c.out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err != nil {
		return err
	}
	defer c.outw.Close()
	c.logw = os.Stderr
	if c.logPath != "" {
		f, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		c.logw = f
	}
	if c.zk, err = dial(c.addr(), time.Duration(c.sessionMS)*time.Millisecond); err != nil {
		return err
	}
	defer c.zk.Close()

	start := time.Now()
	if err := populate(c.zk, treeRoot, c.fanout, c.children, c.size); err != nil {
		return err
	}
	nodes := 1 + c.fanout + c.fanout*c.children
	log.Printf("populated %s: %d nodes in %v", treeRoot, nodes, time.Since(start).Round(time.Millisecond))
	if n, err := readAll(c.zk, treeRoot); err != nil {
		return err
	} else {
		log.Printf("server warm-up: read %d nodes", n)
	}
	c.meta = map[string]any{
		"date": time.Now().UTC().Format("20060102-150405"), "impls": strings.Join(names(c.impls), " "),
		"scenarios": strings.Join(c.scenarios, " "), "cores": runtime.NumCPU(),
		"zookeeper": "3.8.0 standalone, forceSync=no, tickTime=200", "tree_nodes": nodes,
		"fanout": c.fanout, "children": c.children, "value_bytes": c.size, "session_timeout_ms": c.sessionMS,
		"cut_s": c.cutS, "changes": c.changes, "churn_rate": c.churnRate, "churn_s": c.churnS,
		"churn_keys": c.churnKeys, "go": runtime.Version(), "loadavg_start": loadavg(),
	}
	c.record(map[string]any{"meta": c.meta})

	var recs []map[string]any
	for _, sc := range c.scenarios {
		for _, impl := range c.impls {
			switch sc {
			case "cache-load":
				recs = append(recs, c.finishRec(impl, sc, c.cacheLoad(impl, nodes)))
			case "cache-reconnect":
				recs = append(recs, c.finishRec(impl, sc, c.cacheReconnect(impl)))
			case "cache-churn":
				recs = append(recs, c.finishRec(impl, sc, c.cacheChurn(impl)))
			case "heap":
				if !contains(c.heapImpls, filepath.Base(impl)) {
					continue
				}
				for _, n := range c.heapSizes {
					recs = append(recs, c.finishRec(impl, sc, c.heap(impl, n)))
				}
			}
		}
	}
	// other work on the machine skews every figure: keep the load beside them
	c.record(map[string]any{"end": map[string]any{"loadavg": loadavg(), "seconds": round2(time.Since(start).Seconds())}})
	fmt.Println()
	printTables(os.Stdout, recs, 1)
	return nil
}

func names(impls []string) []string {
	var out []string
	for _, i := range impls {
		out = append(out, filepath.Base(i))
	}
	return out
}

type result struct {
	m   map[string]any
	err error
}

func (c *config) finishRec(impl, sc string, r result) map[string]any {
	m := r.m
	if m == nil {
		m = map[string]any{}
	}
	m["impl"] = filepath.Base(impl)
	m["scenario"] = sc
	if r.err == errNA {
		m["na"] = true
	} else if r.err != nil {
		m["failed"] = true
		m["error"] = r.err.Error()
		log.Printf("%s %s: %v", filepath.Base(impl), sc, r.err)
	}
	c.record(m)
	return m
}

func (c *config) record(m map[string]any) {
	b, _ := json.Marshal(m)
	fmt.Fprintf(c.outw, "%s\n", b)
	fmt.Fprintf(os.Stderr, "%s\n", b)
}

func (c *config) implArgs(servers, root string, extra ...string) []string {
	return append([]string{"--servers", servers, "--root", root, "--session-timeout-ms", strconv.Itoa(c.sessionMS)}, extra...)
}

// merge copies the implementation's own figures into the driver's record.
func merge(dst, src map[string]any) map[string]any {
	for k, v := range src {
		if _, ok := dst[k]; !ok {
			dst[k] = v
		}
	}
	return dst
}

// delta is the server's received packets between two readings, less the
// second reading's own mntr packet.
func delta(before, after int64) int64 { return after - before - 1 }

// ---- cache-load ----

func (c *config) cacheLoad(impl string, nodes int) result {
	p, err := startImpl(impl, "cache-load", c.logw, c.implArgs(c.addr(), treeRoot)...)
	if err != nil {
		return result{err: err}
	}
	defer p.kill()
	if _, err := p.expect("CONNECTED", 60*time.Second); err != nil {
		return result{err: err}
	}
	time.Sleep(300 * time.Millisecond)
	before, err := pkts(c.port)
	if err != nil {
		return result{err: err}
	}
	if err := p.send("start"); err != nil {
		return result{err: err}
	}
	if _, err := p.expect("INITIALIZED", 180*time.Second); err != nil {
		return result{err: err}
	}
	after, err := pkts(c.port)
	if err != nil {
		return result{err: err}
	}
	fin, err := p.finish(30 * time.Second)
	if err != nil {
		return result{err: err}
	}
	reqs := delta(before, after)
	m := map[string]any{"nodes": nodes, "reqs": reqs, "reqs_per_node": round2(float64(reqs) / float64(nodes))}
	return result{m: merge(m, fin)}
}

// ---- cache-reconnect ----

func (c *config) cacheReconnect(impl string) result {
	px, err := startProc("cutproxy", c.logw, c.proxy, "-target", c.addr())
	if err != nil {
		return result{err: err}
	}
	defer px.kill()
	f, err := px.expect("LISTEN", 10*time.Second)
	if err != nil || len(f) != 1 {
		return result{err: fmt.Errorf("cutproxy: %v", err)}
	}
	p, err := startImpl(impl, "cache-reconnect", c.logw, c.implArgs(f[0], treeRoot, "--expect", strconv.Itoa(c.changes))...)
	if err != nil {
		return result{err: err}
	}
	defer p.kill()
	if _, err := p.expect("CONNECTED", 60*time.Second); err != nil {
		return result{err: err}
	}
	if err := p.send("start"); err != nil {
		return result{err: err}
	}
	if _, err := p.expect("INITIALIZED", 180*time.Second); err != nil {
		return result{err: err}
	}
	time.Sleep(time.Second)
	if err := px.send("cut"); err != nil {
		return result{err: err}
	}
	cf, err := px.expect("CUT", 10*time.Second)
	if err != nil {
		return result{err: err}
	}
	cutNS, _ := strconv.ParseInt(cf[0], 10, 64)
	time.Sleep(300 * time.Millisecond)
	// change nodes spread over the tree, through the driver's own session
	stamp := strconv.FormatInt(monoNS(), 10)
	changed := []string{}
	for i := 0; i < c.changes; i++ {
		pth := leafPath(treeRoot, (i*37)%c.fanout, (i*53+7)%c.children)
		if _, err := c.zk.Set(pth, []byte(fmt.Sprintf("changed-%s-%d", stamp, i)), -1); err != nil {
			return result{err: fmt.Errorf("set %s: %w", pth, err)}
		}
		changed = append(changed, pth)
	}
	if w := time.Duration(cutNS+int64(c.cutS*1e9)-monoNS()) * time.Nanosecond; w > 0 {
		time.Sleep(w)
	}
	before, err := pkts(c.port)
	if err != nil {
		return result{err: err}
	}
	if err := px.send("open"); err != nil {
		return result{err: err}
	}
	of, err := px.expect("OPEN", 10*time.Second)
	if err != nil {
		return result{err: err}
	}
	openNS, _ := strconv.ParseInt(of[0], 10, 64)
	sf, err := p.expect("SEEN", 120*time.Second)
	if err != nil {
		return result{err: err}
	}
	after, err := pkts(c.port)
	if err != nil {
		return result{err: err}
	}
	seenNS, _ := strconv.ParseInt(sf[0], 10, 64)
	time.Sleep(c.settle)
	settled, err := pkts(c.port)
	if err != nil {
		return result{err: err}
	}
	fin, err := p.finish(30 * time.Second)
	if err != nil {
		return result{err: err}
	}
	m := map[string]any{
		"changes": c.changes, "cut_s": c.cutS, "reconnect_ms": round2(float64(seenNS-openNS) / 1e6),
		"reqs": delta(before, after), "reqs_settled": settled - before - 2, "settle_s": c.settle.Seconds(),
		"cut_to_open_ms": round2(float64(openNS-cutNS) / 1e6),
	}
	if p.reconnectedNS > openNS {
		m["session_back_ms"] = round2(float64(p.reconnectedNS-openNS) / 1e6)
	}
	return result{m: merge(m, fin)}
}

// ---- cache-churn ----

func (c *config) cacheChurn(impl string) result {
	p, err := startImpl(impl, "cache-churn", c.logw, c.implArgs(c.addr(), treeRoot)...)
	if err != nil {
		return result{err: err}
	}
	defer p.kill()
	if _, err := p.expect("CONNECTED", 60*time.Second); err != nil {
		return result{err: err}
	}
	if err := p.send("start"); err != nil {
		return result{err: err}
	}
	if _, err := p.expect("INITIALIZED", 180*time.Second); err != nil {
		return result{err: err}
	}
	time.Sleep(500 * time.Millisecond)
	before, err := pkts(c.port)
	if err != nil {
		return result{err: err}
	}
	writes, wErrs, elapsed := c.writer()
	time.Sleep(2 * time.Second) // let the last events arrive
	after, err := pkts(c.port)
	if err != nil {
		return result{err: err}
	}
	fin, err := p.finish(30 * time.Second)
	if err != nil {
		return result{err: err}
	}
	reqs := delta(before, after) - writes // the writer's setData are not the cache's
	m := map[string]any{
		"writes": writes, "write_errors": wErrs, "write_rate": round2(float64(writes) / elapsed.Seconds()),
		"keys": c.churnKeys, "reqs": reqs,
	}
	if ev, ok := toFloat(fin["events"]); ok && writes > 0 {
		m["seen_frac"] = round2(ev / float64(writes))
		if ev > 0 {
			m["reqs_per_event"] = round2(float64(reqs) / ev)
		}
	}
	return result{m: merge(m, fin)}
}

// writer sets churnRate values per second for churnS seconds on churnKeys
// nodes round robin, each value the send time (CLOCK_MONOTONIC ns, as
// text), paced by a schedule (not by the answers) over 8 goroutines.
func (c *config) writer() (writes, errs int64, elapsed time.Duration) {
	total := int(float64(c.churnRate) * c.churnS)
	keys := make([]string, c.churnKeys)
	for k := range keys {
		keys[k] = leafPath(treeRoot, (k/c.children)%c.fanout, k%c.children)
	}
	const workers = 8
	var nw, ne atomic.Int64
	start := time.Now()
	interval := time.Second / time.Duration(c.churnRate)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < total; i += workers {
				if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
					time.Sleep(d)
				}
				v := strconv.FormatInt(monoNS(), 10)
				if _, err := c.zk.Set(keys[i%len(keys)], []byte(v), -1); err != nil {
					ne.Add(1)
				} else {
					nw.Add(1)
				}
			}
		}(w)
	}
	wg.Wait()
	return nw.Load(), ne.Load(), time.Since(start)
}

// ---- heap ----

func (c *config) heap(impl string, leaves int) result {
	root := treeRoot
	fanout := leaves / 100
	if fanout != c.fanout || c.children != 100 {
		root = fmt.Sprintf("%s%d", bigRoot, leaves)
		t := time.Now()
		if err := populate(c.zk, root, fanout, 100, c.size); err != nil {
			return result{err: err}
		}
		// left in place: heap is the last scenario and the server is thrown away
		log.Printf("populated %s: %d leaves in %v", root, leaves, time.Since(t).Round(time.Millisecond))
	}
	nodes := 1 + fanout + leaves
	p, err := startImpl(impl, "heap", c.logw, c.implArgs(c.addr(), root)...)
	if err != nil {
		return result{err: err}
	}
	defer p.kill()
	if _, err := p.expect("CONNECTED", 60*time.Second); err != nil {
		return result{err: err}
	}
	if err := p.send("start"); err != nil {
		return result{err: err}
	}
	// Kazoo under tracemalloc loads 100,000 nodes in minutes
	if _, err := p.expect("INITIALIZED", 900*time.Second); err != nil {
		return result{err: err}
	}
	fin, err := p.finish(60 * time.Second)
	if err != nil {
		return result{err: err}
	}
	m := merge(map[string]any{"nodes": nodes, "value_bytes": c.size}, fin)
	heapFigures(m)
	return result{m: m}
}

// heapFigures adds to a heap record the figures per node the
// implementation holds (held: CuratorCache 5.4.0 says initialized with
// 66,535 of 101,001 nodes, its Phaser refusing reads past 65,535 at once,
// CURATOR-690, fixed in 5.6.0), from its heap_bytes, created and
// value_bytes; report applies it to older records too.
func heapFigures(m map[string]any) {
	held, ok := toFloat(m["created"])
	if !ok || held <= 0 {
		held, _ = toFloat(m["nodes"])
	}
	size, ok := toFloat(m["value_bytes"])
	if !ok {
		size = 100
	}
	hb, ok := toFloat(m["heap_bytes"])
	if !ok || held <= 0 {
		return
	}
	m["held"] = held
	m["bytes_per_node"] = round2(hb / held)
	// every node but the root (no data) holds a value of size bytes
	m["over_value_per_node"] = round2((hb - (held-1)*size) / held)
}

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

// loadavg is /proc/loadavg's first three fields (1, 5, 15 min).
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
