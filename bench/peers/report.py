#!/usr/bin/python3
"""Tables of bench/peers runs: report.py FILE... (one run.sh result each).

With several files every figure is the median over them, per scenario and
implementation; failed increments, violations and errors are summed, so
that one bad run shows.
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
                    runs.setdefault((r["scenario"], r["impl"]), []).append(r)
    return runs


def median(rs, key):
    vals = [key(r) for r in rs]
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def per_op(r):
    return r["zk_pkts"] / r["all_ops"] if r.get("all_ops") else None


def fmt(v, digits=1):
    return "-" if v is None else f"{v:,.{digits}f}"


def main(paths):
    runs = load(paths)
    print(f"{len(paths)} run(s): {', '.join(paths)}" + ("  (medians)" if len(paths) > 1 else ""))
    for scenario in sorted({s for s, _ in runs}):
        print(f"\n### {scenario}\n")
        print("| impl | runs | ops/s | p50 µs | p99 µs | requests/op | tries/op | failed | violations | errors |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for (s, impl), rs in sorted(runs.items()):
            if s != scenario:
                continue
            bad = [r for r in rs if r.get("na") or r.get("stalled") or r.get("failed_run")]
            note = " (" + ", ".join(sorted({k for r in bad for k in ("na", "stalled", "failed_run") if r.get(k)})) + ")" if bad else ""
            ok = [r for r in rs if r not in bad]
            print(f"| {impl}{note} | {len(rs)} | {fmt(median(ok, lambda r: r['ops_per_s']))} "
                  f"| {fmt(median(ok, lambda r: r['p50_us']))} | {fmt(median(ok, lambda r: r['p99_us']))} "
                  f"| {fmt(median(ok, per_op), 2)} | {fmt(median(ok, lambda r: r.get('tries_per_op')), 2)} "
                  f"| {sum(r.get('failed', 0) for r in ok)} | {sum(r.get('violations', 0) for r in ok)} "
                  f"| {sum(r.get('errors', 0) for r in ok)} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: report.py FILE...")
    main(sys.argv[1:])
