package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// report prints the tables of one or more result files: with several, each
// figure is the median over the runs (files) of the same scenario and impl.
func report(w io.Writer, files []string) error {
	if len(files) == 0 {
		return fmt.Errorf("usage: cachedriver report FILE.jsonl...")
	}
	var recs []map[string]any
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				continue
			}
			if meta, ok := m["meta"].(map[string]any); ok {
				fmt.Fprintf(w, "%s: load average at start %v\n", f, meta["loadavg_start"])
				continue
			}
			if end, ok := m["end"].(map[string]any); ok {
				fmt.Fprintf(w, "  at end %v (%v s)\n", end["loadavg"], end["seconds"])
				continue
			}
			if m["scenario"] == "heap" {
				heapFigures(m)
			}
			recs = append(recs, m)
		}
		fh.Close()
	}
	fmt.Fprintf(w, "\n%d file(s)\n\n", len(files))
	printTables(w, recs, len(files))
	return nil
}

type column struct {
	head, key string
	digits    int
}

var tables = []struct {
	scenario, title string
	cols            []column
}{
	{"cache-load", "cache-load: start → initialized on the loaded tree", []column{
		{"nodes", "nodes", 0}, {"load ms", "load_ms", 1}, {"requests", "reqs", 0},
		{"req/node", "reqs_per_node", 2}, {"created events", "created", 0}}},
	{"cache-reconnect", "cache-reconnect: proxy open → all changes reported", []column{
		{"changes seen", "seen", 0}, {"connection back ms", "session_back_ms", 1}, {"time ms", "reconnect_ms", 1}, {"requests", "reqs", 0},
		{"requests +settle", "reqs_settled", 0}, {"events after init", "events_after_init", 0}}},
	{"cache-churn", "cache-churn: event lag under steady setData", []column{
		{"writes", "writes", 0}, {"events", "events", 0}, {"seen/expected", "seen_frac", 2},
		{"lag p50 ms", "lag_p50_ms", 2}, {"lag p99 ms", "lag_p99_ms", 2}, {"lag max ms", "lag_max_ms", 1},
		{"requests", "reqs", 0}, {"req/event", "reqs_per_event", 2}}},
	{"heap", "heap: live heap after GC, cache loaded minus before (Go HeapAlloc, JVM used heap, Python tracemalloc)", []column{
		{"nodes", "nodes", 0}, {"held", "held", 0}, {"heap MB", "heap_mb", 1}, {"bytes/node held", "bytes_per_node", 0},
		{"over the value B/node", "over_value_per_node", 0}}},
}

func printTables(w io.Writer, recs []map[string]any, runs int) {
	for _, t := range tables {
		groups := map[string][]map[string]any{}
		var order []string
		for _, r := range recs {
			if r["scenario"] != t.scenario {
				continue
			}
			k := fmt.Sprint(r["impl"])
			if t.scenario == "heap" {
				k += fmt.Sprintf("\x00%v", r["nodes"])
			}
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], r)
		}
		if len(order) == 0 {
			continue
		}
		title := t.title
		if runs > 1 {
			title += fmt.Sprintf(" (medians of %d runs)", runs)
		}
		fmt.Fprintf(w, "### %s\n\n| impl |", title)
		for _, c := range t.cols {
			fmt.Fprintf(w, " %s |", c.head)
		}
		extra := 0
		if t.scenario == "cache-load" {
			fmt.Fprintf(w, " speed-up vs curator | requests ÷ curator's |")
			extra = 2
		}
		fmt.Fprintf(w, "\n|---|")
		for i := 0; i < len(t.cols)+extra; i++ {
			fmt.Fprintf(w, "---:|")
		}
		fmt.Fprintln(w)
		for _, k := range order {
			g := groups[k]
			fmt.Fprintf(w, "| %s |", strings.SplitN(k, "\x00", 2)[0])
			failed, na := 0, 0
			for _, r := range g {
				if r["failed"] == true {
					failed++
				}
				if r["na"] == true {
					na++
				}
			}
			if na == len(g) {
				for range t.cols {
					fmt.Fprintf(w, " n/a |")
				}
				fmt.Fprintln(w)
				continue
			}
			for _, c := range t.cols {
				var vals []float64
				for _, r := range g {
					if v, ok := toFloat(r[c.key]); ok && r["failed"] != true {
						vals = append(vals, v)
					}
				}
				if len(vals) == 0 {
					fmt.Fprintf(w, " – |")
					continue
				}
				fmt.Fprintf(w, " %s |", fmtNum(median(vals), c.digits))
			}
			if t.scenario == "cache-load" {
				// against Curator's medians: speed-up (Curator time / this) and request share
				name := strings.SplitN(k, "\x00", 2)[0]
				mine, base := medianOf(g, "load_ms"), medianOf(groups["curator"], "load_ms")
				mr, br := medianOf(g, "reqs"), medianOf(groups["curator"], "reqs")
				if name != "curator" && mine > 0 && base > 0 && br > 0 {
					fmt.Fprintf(w, " %.1f× | %.3f |", base/mine, mr/br)
				} else {
					fmt.Fprintf(w, " – | – |")
				}
			}
			if failed > 0 {
				fmt.Fprintf(w, " FAILED ×%d", failed)
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
	}
}

func median(v []float64) float64 {
	sort.Float64s(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

func fmtNum(f float64, digits int) string {
	s := fmt.Sprintf("%.*f", digits, f)
	// thousands separators on the integer part
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	var b strings.Builder
	for i, ch := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	out := b.String() + frac
	if neg {
		out = "-" + out
	}
	return out
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// medianOf is the median of key over the records that did not fail (0: none).
func medianOf(g []map[string]any, key string) float64 {
	var vals []float64
	for _, r := range g {
		if v, ok := toFloat(r[key]); ok && r["failed"] != true {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return 0
	}
	return median(vals)
}
