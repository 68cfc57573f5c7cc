// Tree-cache bench driver for Apache Curator 5.4.0's CuratorCache (Debian jars), Java 17.
// Line protocol and output per bench/cache/README.md; mirrors ../zkrecipes/main.go and
// ../kazoo/kazoo_cache_bench.py scenario by scenario: keep the three in step.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorCacheBench {
    String scenario, servers = "127.0.0.1:22182", root = "/cachebench/tree";
    int sessionMs = 30_000, expect = 10;

    // Listener state. CuratorCache calls its listeners on one thread, in order; the
    // counters are read by the main thread at the end, so they are atomics / synchronized.
    final CountDownLatch initialized = new CountDownLatch(1);
    final AtomicBoolean isInit = new AtomicBoolean();
    final AtomicLong created = new AtomicLong(), eventsAfterInit = new AtomicLong();
    final Set<String> changedSeen = ConcurrentHashMap.newKeySet();
    final AtomicBoolean seenPrinted = new AtomicBoolean();
    long[] lags = new long[1 << 14];
    int nlags;
    long badValues;

    public static void main(String[] args) throws Exception {
        CuratorCacheBench b = new CuratorCacheBench();
        b.scenario = args.length > 0 ? args[0] : "";
        for (int i = 1; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--servers": b.servers = args[i + 1]; break;
                case "--root": b.root = args[i + 1]; break;
                case "--session-timeout-ms": b.sessionMs = Integer.parseInt(args[i + 1]); break;
                case "--expect": b.expect = Integer.parseInt(args[i + 1]); break;
                default: System.err.println("unknown flag " + args[i]); System.exit(2);
            }
        }
        b.run();
        System.exit(0);
    }

    static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    void run() throws Exception {
        Map<String, Object> res = new LinkedHashMap<>();
        res.put("impl", "curator");
        res.put("scenario", scenario);
        if (!List.of("cache-load", "cache-reconnect", "cache-churn", "heap").contains(scenario)) {
            res.put("na", true);
            say(json(res));
            return;
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        CuratorFramework client = CuratorFrameworkFactory.builder()
            .connectString(servers)
            .sessionTimeoutMs(sessionMs)
            .connectionTimeoutMs(15_000)
            .retryPolicy(new ExponentialBackoffRetry(100, 29, 1000))
            .build();
        client.start();
        if (!client.blockUntilConnected(60, TimeUnit.SECONDS)) throw new IllegalStateException("no connection");
        // cache-reconnect: when the connection is back (the driver subtracts the proxy's OPEN).
        client.getConnectionStateListenable().addListener((c, state) -> {
            if (state == org.apache.curator.framework.state.ConnectionState.RECONNECTED) say("RECONNECTED " + System.nanoTime());
        });
        say("CONNECTED");
        waitFor(in, "start");

        CuratorCache cache = CuratorCache.build(client, root);
        cache.listenable().addListener(new CuratorCacheListener() {
            public void event(Type type, ChildData oldData, ChildData data) {
                long now = System.nanoTime();
                if (!isInit.get()) {
                    if (type == Type.NODE_CREATED) created.incrementAndGet();
                    return;
                }
                eventsAfterInit.incrementAndGet();
                if (type != Type.NODE_CHANGED || data == null || data.getData() == null) return;
                String v = new String(data.getData(), StandardCharsets.UTF_8);
                if (v.startsWith("changed-")) {
                    changedSeen.add(data.getPath());
                    if (changedSeen.size() >= expect && seenPrinted.compareAndSet(false, true)) say("SEEN " + now);
                    return;
                }
                try {
                    lag(now - Long.parseLong(v));
                } catch (NumberFormatException e) {
                    synchronized (CuratorCacheBench.this) { badValues++; }
                }
            }

            public void initialized() {
                isInit.set(true);
                initialized.countDown();
            }
        });
        boolean heapMode = scenario.equals("heap");
        long heapBefore = heapMode ? usedHeapAfterGC() : 0;
        long t0 = System.nanoTime();
        cache.start();
        if (!initialized.await(600, TimeUnit.SECONDS)) throw new IllegalStateException("not initialized");
        long t1 = System.nanoTime();
        res.put("load_ms", Math.round((t1 - t0) / 1e4) / 100.0);
        res.put("created", created.get());
        res.put("cached", cache.size());
        if (heapMode) {
            long hb = usedHeapAfterGC() - heapBefore;
            res.put("heap_bytes", hb);
            res.put("heap_mb", Math.round(hb / 1e5) / 10.0);
        }
        say("INITIALIZED");

        waitFor(in, "stop");
        res.put("events_after_init", eventsAfterInit.get());
        if (scenario.equals("cache-reconnect")) res.put("seen", changedSeen.size());
        if (scenario.equals("cache-churn")) {
            long[] s;
            synchronized (this) { s = Arrays.copyOf(lags, nlags); res.put("bad_values", badValues); }
            Arrays.sort(s);
            res.put("events", s.length);
            res.put("lag_p50_ms", pct(s, 50));
            res.put("lag_p99_ms", pct(s, 99));
            res.put("lag_max_ms", s.length == 0 ? 0.0 : Math.round(s[s.length - 1] / 1e4) / 100.0);
        }
        say(json(res));
        cache.close();
        client.close();
    }

    // usedHeapAfterGC is the JVM's used heap (MemoryMXBean) after full
    // collections: System.gc() four times with pauses, so that what waits
    // on reference processing goes too; the least reading (the client's
    // own work can only add to it).
    static long usedHeapAfterGC() throws InterruptedException {
        java.lang.management.MemoryMXBean mx = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(200);
            used = Math.min(used, mx.getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    synchronized void lag(long ns) {
        if (nlags == lags.length) lags = Arrays.copyOf(lags, 2 * nlags);
        lags[nlags++] = ns;
    }

    // nearest-rank percentile, ms
    static double pct(long[] sorted, double p) {
        if (sorted.length == 0) return 0.0;
        int i = Math.max(0, (int) Math.ceil(p / 100 * sorted.length) - 1);
        return Math.round(sorted[i] / 1e4) / 100.0;
    }

    static void waitFor(BufferedReader in, String word) throws Exception {
        String l;
        while ((l = in.readLine()) != null) if (l.trim().equals(word)) return;
    }

    static String json(Map<String, Object> m) {
        StringBuilder sb = new StringBuilder("{");
        for (Map.Entry<String, Object> e : m.entrySet()) {
            if (sb.length() > 1) sb.append(',');
            sb.append('"').append(e.getKey()).append("\":");
            Object v = e.getValue();
            if (v instanceof String) sb.append('"').append(v).append('"');
            else sb.append(v);
        }
        return sb.append('}').toString();
    }
}
