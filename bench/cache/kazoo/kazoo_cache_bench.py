#!/usr/bin/python3
"""Tree-cache bench driver for Kazoo 2.8.0's TreeCache (Debian's /usr/bin/python3).

Line protocol and output per bench/cache/README.md; mirrors ../zkrecipes/main.go
and ../curator/CuratorCacheBench.java scenario by scenario: keep the three in step.
"""
import argparse
import gc
import json
import logging
import math
import sys
import threading
import time
import tracemalloc

from kazoo.client import KazooClient, KazooState
from kazoo.recipe.cache import TreeCache, TreeEvent


def mono_ns():
    """CLOCK_MONOTONIC in ns (Java's System.nanoTime, the Go drivers' clock)."""
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def wait_for(word):
    for line in sys.stdin:
        if line.strip() == word:
            return


def pct(sorted_ns, p):
    """Nearest-rank percentile, ms."""
    if not sorted_ns:
        return 0.0
    return round(sorted_ns[max(0, math.ceil(p / 100 * len(sorted_ns)) - 1)] / 1e6, 2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario")
    ap.add_argument("--servers", default="127.0.0.1:22182")
    ap.add_argument("--root", default="/cachebench/tree")
    ap.add_argument("--session-timeout-ms", type=int, default=30000)
    ap.add_argument("--expect", type=int, default=10)
    a = ap.parse_args()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    res = {"impl": "kazoo", "scenario": a.scenario}
    if a.scenario not in ("cache-load", "cache-reconnect", "cache-churn", "heap"):
        res["na"] = True
        say(json.dumps(res))
        return

    client = KazooClient(hosts=a.servers, timeout=a.session_timeout_ms / 1000.0,
                         connection_retry={"max_tries": -1, "delay": 0.1, "backoff": 2, "max_delay": 1.0})
    client.start(timeout=60)
    # cache-reconnect: when the connection is back (the driver subtracts the proxy's OPEN).
    was_suspended = [False]

    def state_listener(state):
        if state == KazooState.SUSPENDED:
            was_suspended[0] = True
        elif state == KazooState.CONNECTED and was_suspended[0]:
            was_suspended[0] = False
            say("RECONNECTED %d" % mono_ns())

    client.add_listener(state_listener)
    say("CONNECTED")
    wait_for("start")

    # TreeCache calls listeners on its own single thread, in order.
    st = {"init": False, "created": 0, "after": 0, "bad": 0, "seen_printed": False}
    changed = set()
    lags = []
    initialized = threading.Event()

    def listener(ev):
        now = mono_ns()
        t = ev.event_type
        if t == TreeEvent.INITIALIZED:
            st["init"] = True
            initialized.set()
            return
        if t not in (TreeEvent.NODE_ADDED, TreeEvent.NODE_UPDATED, TreeEvent.NODE_REMOVED):
            return  # connection state events
        if not st["init"]:
            if t == TreeEvent.NODE_ADDED:
                st["created"] += 1
            return
        st["after"] += 1
        if t != TreeEvent.NODE_UPDATED or ev.event_data is None or ev.event_data.data is None:
            return
        v = ev.event_data.data
        if v.startswith(b"changed-"):
            changed.add(ev.event_data.path)
            if len(changed) >= a.expect and not st["seen_printed"]:
                st["seen_printed"] = True
                say("SEEN %d" % now)
            return
        try:
            lags.append(now - int(v))
        except ValueError:
            st["bad"] += 1

    # heap: tracemalloc counts the bytes Python's allocators handed out
    # after its start and still hold (object headers included; not
    # pymalloc's rounding to 16 bytes, its arenas' slack, nor tracemalloc's
    # own records). It slows every allocation, so the heap scenario's
    # load_ms is not comparable with cache-load's.
    heap_mode = a.scenario == "heap"
    if heap_mode:
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
    cache = TreeCache(client, a.root)
    cache.listen(listener)
    t0 = mono_ns()
    cache.start()
    if not initialized.wait(600):
        raise SystemExit("not initialized")
    t1 = mono_ns()
    res["load_ms"] = round((t1 - t0) / 1e6, 2)
    res["created"] = st["created"]
    if heap_mode:
        gc.collect()
        hb = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        res["heap_bytes"] = hb
        res["heap_mb"] = round(hb / 1e6, 1)
    say("INITIALIZED")

    wait_for("stop")
    res["events_after_init"] = st["after"]
    if a.scenario == "cache-reconnect":
        res["seen"] = len(changed)
    if a.scenario == "cache-churn":
        s = sorted(lags)
        res["events"] = len(s)
        res["bad_values"] = st["bad"]
        res["lag_p50_ms"] = pct(s, 50)
        res["lag_p99_ms"] = pct(s, 99)
        res["lag_max_ms"] = round(s[-1] / 1e6, 2) if s else 0.0
    say(json.dumps(res))
    cache.close()
    client.stop()
    client.close()


if __name__ == "__main__":
    main()
