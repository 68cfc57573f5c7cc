// The peer scenarios of bench/peers (README.md) on Apache Curator 5.4.0 (Debian jars):
// the anchor harness's CLI, one JSON line on stdout. Keep in step with
// bench/zkrecipes/counter.go, bench/zkrecipes/queue.go and ../kazoo/kazoo_peer_bench.py.

import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorPeerBench {
    // Workers still running this long after the window mean the recipe is stuck.
    static final long STALL_GRACE_NS = 10_000_000_000L;
    // queue-1to4: the most items the producer keeps in the queue, and the bound on the drain.
    static final int QUEUE_WINDOW = 64;
    static final long QUEUE_DRAIN_NS = 60_000_000_000L;

    String scenario, servers = "127.0.0.1:22181", root, variant = "latch";
    int clients = 1, sessionMs = 10_000;
    double durationS = 8, warmupS = 1;
    final List<CuratorFramework> sessions = new ArrayList<>();
    final Map<String, Object> res = new LinkedHashMap<>();

    public static void main(String[] args) throws Exception {
        CuratorPeerBench b = new CuratorPeerBench();
        if (args.length < 1 || args[0].startsWith("-")) {
            System.err.println("usage: SCENARIO --servers H:P --clients N --duration-s D --root PATH [--warmup-s W] [--session-timeout-ms MS]");
            System.exit(2);
        }
        b.scenario = args[0];
        b.root = "/bench/curator/" + b.scenario;
        for (int i = 1; i + 1 < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--servers": b.servers = v; break;
                case "--clients": b.clients = Integer.parseInt(v); break;
                case "--duration-s": b.durationS = Double.parseDouble(v); break;
                case "--warmup-s": b.warmupS = Double.parseDouble(v); break;
                case "--root": b.root = v; break;
                case "--session-timeout-ms": b.sessionMs = Integer.parseInt(v); break;
                case "--variant": b.variant = v; break;
                case "--leases": case "--cycles": case "--log": case "--hold-us": break; // the harness's, unused here
                default: System.err.println("unknown flag " + args[i]); System.exit(2);
            }
        }
        b.res.put("impl", "curator");
        b.res.put("scenario", b.scenario);
        b.res.put("clients", b.clients);
        if (b.scenario.equals("counter-contended")) {
            for (int i = 0; i < b.clients; i++) b.sessions.add(b.connect(i));
            b.counterContended();
        } else if (b.scenario.equals("queue-1to4")) {
            if (!b.variant.equals("plain") && !b.variant.equals("locking")) {
                System.err.println("--variant " + b.variant + ": want plain or locking");
                System.exit(2);
            }
            for (int i = 0; i < b.clients; i++) b.sessions.add(b.connect(i));
            b.queue1to4();
        } else {
            b.res.put("na", true);
        }
        if (!b.res.containsKey("stalled")) for (CuratorFramework c : b.sessions) c.close();
        System.out.println(b.json());
        System.exit(0); // also ends threads stuck inside the library
    }

    CuratorFramework connect(int i) throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(servers)
            .sessionTimeoutMs(sessionMs).connectionTimeoutMs(Math.min(10_000, sessionMs))
            .retryPolicy(new ExponentialBackoffRetry(100, 3)).build();
        c.start();
        if (!c.blockUntilConnected(10, TimeUnit.SECONDS)) throw new IllegalStateException("no session " + i);
        return c;
    }

    // counter-contended: every client increments one DistributedAtomicLong at ROOT/counter, its
    // optimistic tries under ExponentialBackoffRetry(5 ms, 10 retries, at most 500 ms), as
    // zkrecipes' default. An op is an increment that succeeded; one beaten on every try is failed.
    // The counter must rise by exactly the increments that succeeded.
    void counterContended() throws Exception {
        String path = root + "/counter";
        DistributedAtomicLong[] longs = new DistributedAtomicLong[sessions.size()];
        for (int i = 0; i < longs.length; i++)
            longs[i] = new DistributedAtomicLong(sessions.get(i), path, new ExponentialBackoffRetry(5, 10, 500));
        long before = longs[0].get().postValue();
        AtomicLong failed = new AtomicLong(), tries = new AtomicLong(), errors = new AtomicLong(), allOps = new AtomicLong();
        long start = System.nanoTime();
        long mstart = start + (long) (warmupS * 1e9), end = mstart + (long) (durationS * 1e9);
        List<Long> lats = Collections.synchronizedList(new ArrayList<>());
        Thread[] threads = new Thread[longs.length];
        for (int w = 0; w < longs.length; w++) {
            DistributedAtomicLong l = longs[w];
            threads[w] = new Thread(() -> {
                while (true) {
                    long t0 = System.nanoTime();
                    try {
                        AtomicValue<Long> v = l.increment();
                        tries.addAndGet(v.getStats().getOptimisticTries() + v.getStats().getPromotedLockTries());
                        long now = System.nanoTime();
                        if (v.succeeded()) {
                            allOps.incrementAndGet();
                            if (now >= mstart && now < end) lats.add(now - t0);
                        } else {
                            failed.incrementAndGet();
                        }
                    } catch (Exception e) {
                        if (errors.incrementAndGet() < 5) e.printStackTrace();
                        try { Thread.sleep(10); } catch (InterruptedException ie) { return; }
                    }
                    if (System.nanoTime() >= end) break;
                }
            });
            threads[w].start();
        }
        boolean stalled = false;
        for (Thread t : threads) {
            t.join(Math.max(1, (end + STALL_GRACE_NS - System.nanoTime()) / 1_000_000));
            stalled |= t.isAlive();
        }
        long[] all;
        synchronized (lats) { all = lats.stream().mapToLong(Long::longValue).toArray(); }
        if (stalled) res.put("stalled", true);
        res.put("ops", all.length);
        res.put("ops_per_s", all.length / durationS);
        putPercentiles(all);
        long violations = 0;
        if (!stalled) {
            long rise = longs[0].get().postValue() - before;
            if (rise != allOps.get()) {
                System.err.println("curator counter-contended: the counter rose by " + rise + ", " + allOps.get() + " increments succeeded");
                violations++;
            }
        }
        res.put("violations", violations);
        res.put("errors", errors.get());
        res.put("all_ops", allOps.get());
        res.put("failed", failed.get());
        res.put("tries_per_op", allOps.get() == 0 ? 0.0 : (double) tries.get() / allOps.get());
    }

    // queue-1to4: client 0 puts items into ROOT/queue with a producer-only DistributedQueue,
    // putInBackground(false) so that a put returns once the server has the item, as zkrecipes'
    // and Kazoo's do (Curator's default puts in the background); the others consume, each with a
    // DistributedQueue of its own and Curator's default direct executor (one item at a time on
    // the queue's thread). The producer keeps at most QUEUE_WINDOW items in the queue. --variant
    // plain: no lock path (Curator's default: the item is deleted, then consumed, at most once);
    // locking: lockPath ROOT/locks (lock-safe: deleted after consumeMessage returns, as Kazoo's
    // LockingQueue). An op is an item taken; latency is from the put's call to consumeMessage.
    // After the window the producer stops and the consumers take what is left.
    void queue1to4() throws Exception {
        String path = root + "/queue";
        boolean locking = variant.equals("locking");
        QueueSerializer<byte[]> bytes = new QueueSerializer<byte[]>() {
            public byte[] serialize(byte[] b) { return b; }
            public byte[] deserialize(byte[] b) { return b; }
        };
        long start = System.nanoTime();
        long mstart = start + (long) (warmupS * 1e9), end = mstart + (long) (durationS * 1e9);
        Semaphore room = new Semaphore(QUEUE_WINDOW);
        Map<String, Long> putAt = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> takes = new ConcurrentHashMap<>();
        List<Long> lats = Collections.synchronizedList(new ArrayList<>());
        AtomicLong errors = new AtomicLong();
        QueueConsumer<byte[]> consumer = new QueueConsumer<byte[]>() {
            public void consumeMessage(byte[] b) {
                long now = System.nanoTime();
                String item = new String(b, java.nio.charset.StandardCharsets.UTF_8);
                int n = takes.computeIfAbsent(item, k -> new AtomicInteger()).incrementAndGet();
                Long at = putAt.get(item);
                if (n > 1 || at == null) return; // taken again, or its put failed
                if (now >= mstart && now < end) lats.add(now - at);
                room.release();
            }
            public void stateChanged(CuratorFramework c, ConnectionState s) {}
        };
        List<DistributedQueue<byte[]>> queues = new ArrayList<>();
        for (int i = 1; i < sessions.size(); i++) {
            QueueBuilder<byte[]> qb = QueueBuilder.builder(sessions.get(i), consumer, bytes, path);
            if (locking) qb = qb.lockPath(root + "/locks");
            queues.add(qb.buildQueue());
        }
        QueueBuilder<byte[]> pb = QueueBuilder.builder(sessions.get(0), (QueueConsumer<byte[]>) null, bytes, path).putInBackground(false);
        if (locking) pb = pb.lockPath(root + "/locks");
        DistributedQueue<byte[]> producer = pb.buildQueue();
        producer.start();
        for (DistributedQueue<byte[]> q : queues) q.start();
        for (int n = 0; System.nanoTime() < end; n++) {
            if (!room.tryAcquire(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS)) continue; // the consumers lag
            String item = String.format("item-%07d", n);
            putAt.put(item, System.nanoTime());
            try {
                producer.put(item.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            } catch (Exception e) {
                if (errors.incrementAndGet() < 5) e.printStackTrace();
                putAt.remove(item);
                room.release();
                Thread.sleep(10);
            }
        }
        long deadline = System.nanoTime() + QUEUE_DRAIN_NS;
        while (room.availablePermits() < QUEUE_WINDOW && System.nanoTime() < deadline) Thread.sleep(5);
        boolean stalled = room.availablePermits() < QUEUE_WINDOW;
        if (!stalled) {
            producer.close();
            for (DistributedQueue<byte[]> q : queues) q.close();
        }
        long[] all;
        synchronized (lats) { all = lats.stream().mapToLong(Long::longValue).toArray(); }
        if (stalled) res.put("stalled", true);
        res.put("ops", all.length);
        res.put("ops_per_s", all.length / durationS);
        putPercentiles(all);
        long lost = 0, twice = 0;
        for (String item : putAt.keySet()) {
            AtomicInteger n = takes.get(item);
            if (n == null) lost++;
            else if (n.get() > 1) twice++;
        }
        res.put("violations", lost + twice);
        res.put("errors", errors.get());
        res.put("all_ops", (long) takes.size());
        res.put("variant", variant);
        res.put("put", (long) putAt.size());
        res.put("lost", lost);
        res.put("taken_twice", twice);
    }

    // Nearest-rank percentiles, in microseconds.
    void putPercentiles(long[] ns) {
        long[] s = ns.clone();
        Arrays.sort(s);
        for (int p : new int[] {50, 99}) {
            int i = Math.max(0, (int) Math.ceil(p / 100.0 * s.length) - 1);
            res.put("p" + p + "_us", s.length == 0 ? 0.0 : s[i] / 1000.0);
        }
    }

    String json() {
        StringBuilder sb = new StringBuilder("{");
        for (Map.Entry<String, Object> e : res.entrySet()) {
            if (sb.length() > 1) sb.append(',');
            sb.append('"').append(e.getKey()).append("\":");
            Object v = e.getValue();
            if (v instanceof String) sb.append('"').append(v).append('"');
            else if (v instanceof Double) sb.append(String.format(Locale.ROOT, e.getKey().equals("tries_per_op") ? "%.2f" : "%.1f", (Double) v));
            else sb.append(v);
        }
        return sb.append('}').toString();
    }
}
