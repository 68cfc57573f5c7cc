#!/usr/bin/python3
"""Tables of bench/peers runs: report.py FILE... (one run.sh result each).

With several files every figure is the median over them, per scenario and
implementation (and variant: a queue's plain and locking rows); failed
increments, items lost or taken twice, violations and errors are summed,
so that one bad run shows.
"""
import json
import statistics
import sys


def load(paths):
    runs = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                if "scenario" in r:
                    impl = r["impl"] + (" " + r["variant"] if r.get("variant") else "")
                    runs.setdefault((r["scenario"], impl), []).append(r)
    return runs


def median(rs, key):
    vals = [key(r) for r in rs]
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def per_op(r):
    return r["zk_pkts"] / r["all_ops"] if r.get("all_ops") else None


def fmt(v, digits=1):
    return "-" if v is None else f"{v:,.{digits}f}"


# The columns of each scenario after the implementation and its runs: a title, a figure
# (the median over the runs that did not fail), or a count (summed, so that one bad run shows).
COLUMNS = {
    "counter-contended": [
        ("ops/s", "median", lambda r: r["ops_per_s"], 1), ("p50 µs", "median", lambda r: r["p50_us"], 1),
        ("p99 µs", "median", lambda r: r["p99_us"], 1), ("requests/op", "median", per_op, 2),
        ("tries/op", "median", lambda r: r.get("tries_per_op"), 2), ("failed", "sum", "failed", 0),
        ("violations", "sum", "violations", 0), ("errors", "sum", "errors", 0)],
    "queue-1to4": [
        ("items/s", "median", lambda r: r["ops_per_s"], 1), ("p50 µs", "median", lambda r: r["p50_us"], 1),
        ("p99 µs", "median", lambda r: r["p99_us"], 1), ("requests/item", "median", per_op, 2),
        ("lost", "sum", "lost", 0), ("taken twice", "sum", "taken_twice", 0), ("errors", "sum", "errors", 0)],
}


def main(paths):
    runs = load(paths)
    print(f"{len(paths)} run(s): {', '.join(paths)}" + ("  (medians)" if len(paths) > 1 else ""))
    for scenario in sorted({s for s, _ in runs}):
        columns = COLUMNS.get(scenario, COLUMNS["counter-contended"])
        print(f"\n### {scenario}\n")
        print("| impl | runs | " + " | ".join(c[0] for c in columns) + " |")
        print("|---|---|" + "---|" * len(columns))
        for (s, impl), rs in sorted(runs.items()):
            if s != scenario:
                continue
            bad = [r for r in rs if r.get("na") or r.get("stalled") or r.get("failed_run")]
            note = " (" + ", ".join(sorted({k for r in bad for k in ("na", "stalled", "failed_run") if r.get(k)})) + ")" if bad else ""
            ok = [r for r in rs if r not in bad]
            cells = [fmt(median(ok, f), d) if how == "median" else str(sum(r.get(f, 0) for r in ok)) for _, how, f, d in columns]
            print(f"| {impl}{note} | {len(rs)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: report.py FILE...")
    main(sys.argv[1:])
