#!/usr/bin/python3
"""The peer scenarios of bench/peers (README.md) on Kazoo 2.8.0: the anchor
harness's CLI, one JSON line on stdout. Keep in step with
bench/zkrecipes/counter.go and ../curator/CuratorPeerBench.java.

Run with Debian's /usr/bin/python3 (that is where python3-kazoo lives).
"""
import argparse
import json
import logging
import math
import sys
import threading
import time

from kazoo.client import KazooClient
from kazoo.retry import KazooRetry, RetryFailedError

now = time.perf_counter

# Workers still running this long after the window mean the recipe is stuck.
STALL_GRACE_S = 10.0


def percentile(samples, p):
    """Nearest-rank percentile of seconds, in microseconds."""
    if not samples:
        return 0.0
    s = sorted(samples)
    return round(s[max(0, math.ceil(p / 100 * len(s)) - 1)] * 1e6, 1)


def connect(a):
    """One session, its command retry as zkrecipes' and Curator's optimistic tries:
    up to 10 retries, from 5 ms doubling to at most 500 ms (Kazoo's jitter: +-40 %).
    Kazoo's default (unbounded tries from 100 ms) would never fail an increment."""
    retry = KazooRetry(max_tries=10, delay=0.005, backoff=2, max_delay=0.5)
    c = KazooClient(hosts=a.servers, timeout=a.session_timeout_ms / 1000.0, command_retry=retry)
    c.start(timeout=10)
    return c


def counted(counter, tries):
    """Counts the tries of counter's changes: Counter has no stats, so its one
    read-and-versioned-write step is wrapped (each ForceRetryError is one more)."""
    inner = counter._inner_change

    def change(value):
        tries[0] += 1
        return inner(value)

    counter._inner_change = change
    return counter


def counter_contended(a, sessions, res):
    """Every client increments one kazoo.recipe.counter.Counter at ROOT/counter.
    An op is an increment that succeeded; one beaten on every try (RetryFailedError)
    is failed. The counter must rise by exactly the increments that succeeded."""
    path = a.root + "/counter"
    tries = [[0] for _ in sessions]  # one cell per worker: no lock needed
    counters = [counted(s.Counter(path), tries[i]) for i, s in enumerate(sessions)]
    before = counters[0].value
    lats, lock = [], threading.Lock()
    totals = {"all_ops": 0, "failed": 0, "errors": 0}
    start = now()
    mstart, end = start + a.warmup_s, start + a.warmup_s + a.duration_s

    def work(w):
        c = counters[w]
        while True:
            t0 = now()
            outcome = "all_ops"
            try:
                c += 1
            except RetryFailedError:
                outcome = "failed"
            except Exception as e:  # noqa: BLE001 - any failure of the library counts as an error
                outcome = "errors"
                print("kazoo counter-contended: %r" % e, file=sys.stderr)
                time.sleep(0.01)
            t1 = now()
            with lock:
                totals[outcome] += 1
                if outcome == "all_ops" and mstart <= t1 < end:
                    lats.append(t1 - t0)
            if t1 >= end:
                return

    threads = [threading.Thread(target=work, args=(w,), daemon=True) for w in range(len(counters))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.0, end + STALL_GRACE_S - now()))
    stalled = any(t.is_alive() for t in threads)
    with lock:
        res.update(ops=len(lats), ops_per_s=round(len(lats) / a.duration_s, 1),
                   p50_us=percentile(lats, 50), p99_us=percentile(lats, 99), **totals)
    res["violations"] = 0
    if stalled:
        res["stalled"] = True
        return
    rise = counters[0].value - before
    if rise != res["all_ops"]:
        print("kazoo counter-contended: the counter rose by %d, %d increments succeeded" % (rise, res["all_ops"]),
              file=sys.stderr)
        res["violations"] = 1
    res["tries_per_op"] = round(sum(t[0] for t in tries) / res["all_ops"], 2) if res["all_ops"] else 0.0


SCENARIOS = {"counter-contended": counter_contended}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("scenario")
    p.add_argument("--servers", default="127.0.0.1:22181")
    p.add_argument("--clients", type=int, default=1)
    p.add_argument("--duration-s", type=float, default=8)
    p.add_argument("--warmup-s", type=float, default=1)
    p.add_argument("--root")
    p.add_argument("--session-timeout-ms", type=int, default=10000)
    for unused in ("--leases", "--cycles", "--log", "--hold-us", "--variant"):  # the harness's
        p.add_argument(unused)
    a = p.parse_args()
    a.root = a.root or "/bench/kazoo/" + a.scenario
    logging.basicConfig(level=logging.CRITICAL)
    res = {"impl": "kazoo", "scenario": a.scenario, "clients": a.clients}
    scenario = SCENARIOS.get(a.scenario)
    if scenario is None:
        res["na"] = True
        print(json.dumps(res))
        return 0
    sessions = [connect(a) for _ in range(a.clients)]
    scenario(a, sessions, res)
    if not res.get("stalled"):
        for s in sessions:
            s.stop()
            s.close()
    print(json.dumps(res))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
