#!/usr/bin/python3
"""The peer scenarios of bench/peers (README.md) on Kazoo 2.8.0: the anchor
harness's CLI, one JSON line on stdout. Keep in step with
bench/zkrecipes/counter.go, bench/zkrecipes/queue.go and ../curator/CuratorPeerBench.java.

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
from kazoo.recipe.queue import LockingQueue, Queue
from kazoo.retry import KazooRetry, RetryFailedError

now = time.perf_counter

# Workers still running this long after the window mean the recipe is stuck.
STALL_GRACE_S = 10.0
# queue-1to4: the most items the producer keeps in the queue, the bound on the drain, and
# how long a consumer of the plain Queue (which has no blocking get) waits after finding it empty.
QUEUE_WINDOW = 64
QUEUE_DRAIN_S = 60.0
QUEUE_POLL_S = 0.01


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


class ItemTally:
    """queue-1to4's items: when each was put, how often it was taken, and the latencies of
    those taken in the window. The producer holds a slot of room per item in the queue."""

    def __init__(self, mstart, end):
        self.mstart, self.end = mstart, end
        self.room = threading.Semaphore(QUEUE_WINDOW)
        self.lock = threading.Lock()
        self.put_at, self.takes, self.lats, self.errors = {}, {}, [], 0

    def taken(self, item):
        t1 = now()
        with self.lock:
            n = self.takes.get(item, 0) + 1
            self.takes[item] = n
            at = self.put_at.get(item)
            if n > 1 or at is None:
                return  # taken again, or its put failed
            if self.mstart <= t1 < self.end:
                self.lats.append(t1 - at)
        self.room.release()

    def left(self):
        with self.lock:
            return sum(1 for item in self.put_at if item not in self.takes)


def queue_1to4(a, sessions, res):
    """Client 0 puts items into ROOT/queue, the others consume them, one thread each, until
    warm-up and duration are over; then the producer stops and the consumers take what is
    left. The producer keeps at most QUEUE_WINDOW items in the queue. --variant plain:
    kazoo.recipe.queue.Queue (get deletes the item: at most once; it has no blocking get, so
    a consumer that finds the queue empty waits QUEUE_POLL_S and looks again); locking:
    LockingQueue (get locks the entry and waits for one, consume deletes it: at least once).
    An op is an item taken; latency is from the put's call to the get's return."""
    locking = a.variant == "locking"
    path = a.root + "/queue"
    make = (lambda s: LockingQueue(s, path)) if locking else (lambda s: Queue(s, path))
    start = now()
    t = ItemTally(start + a.warmup_s, start + a.warmup_s + a.duration_s)
    stop = threading.Event()

    def consume(q):
        while not stop.is_set():
            try:
                if locking:
                    v = q.get(timeout=0.5)
                    if v is None:
                        continue
                    t.taken(v.decode())
                    q.consume()
                    continue
                v = q.get()
                if v is None:
                    time.sleep(QUEUE_POLL_S)
                    continue
                t.taken(v.decode())
            except Exception as e:  # noqa: BLE001 - any failure of the library counts as an error
                with t.lock:
                    t.errors += 1
                print("kazoo queue-1to4: %r" % e, file=sys.stderr)
                time.sleep(0.01)

    threads = [threading.Thread(target=consume, args=(make(s),), daemon=True) for s in sessions[1:]]
    for th in threads:
        th.start()
    producer = make(sessions[0])
    n = 0
    while now() < t.end:
        if not t.room.acquire(timeout=max(0.0, t.end - now())):
            continue  # the window is over while the consumers lag
        item = "item-%07d" % n
        n += 1
        with t.lock:
            t.put_at[item] = now()
        try:
            producer.put(item.encode())
        except Exception as e:  # noqa: BLE001
            with t.lock:
                del t.put_at[item]
                t.errors += 1
            t.room.release()
            print("kazoo queue-1to4: put: %r" % e, file=sys.stderr)
            time.sleep(0.01)
    deadline = now() + QUEUE_DRAIN_S
    while t.left() > 0 and now() < deadline:
        time.sleep(0.005)
    stop.set()
    for th in threads:
        th.join(STALL_GRACE_S)
    with t.lock:
        lost = sum(1 for item in t.put_at if item not in t.takes)
        twice = sum(1 for item in t.put_at if t.takes.get(item, 0) > 1)
        res.update(ops=len(t.lats), ops_per_s=round(len(t.lats) / a.duration_s, 1),
                   p50_us=percentile(t.lats, 50), p99_us=percentile(t.lats, 99),
                   violations=lost + twice, errors=t.errors, all_ops=len(t.takes),
                   variant=a.variant, put=len(t.put_at), lost=lost, taken_twice=twice)
    if lost > 0 or any(th.is_alive() for th in threads):
        res["stalled"] = True


SCENARIOS = {"counter-contended": counter_contended, "queue-1to4": queue_1to4}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("scenario")
    p.add_argument("--servers", default="127.0.0.1:22181")
    p.add_argument("--clients", type=int, default=1)
    p.add_argument("--duration-s", type=float, default=8)
    p.add_argument("--warmup-s", type=float, default=1)
    p.add_argument("--root")
    p.add_argument("--session-timeout-ms", type=int, default=10000)
    p.add_argument("--variant", default="latch")
    for unused in ("--leases", "--cycles", "--log", "--hold-us"):  # the harness's
        p.add_argument(unused)
    a = p.parse_args()
    a.root = a.root or "/bench/kazoo/" + a.scenario
    logging.basicConfig(level=logging.CRITICAL)
    res = {"impl": "kazoo", "scenario": a.scenario, "clients": a.clients}
    scenario = SCENARIOS.get(a.scenario)
    if a.scenario == "queue-1to4" and a.variant not in ("plain", "locking"):
        print("--variant %s: want plain or locking" % a.variant, file=sys.stderr)
        return 2
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
