// CuratorPeer drives Apache Curator 5.4.0 recipes over stdin/stdout so that the Go tests of
// zkrecipes can run a real Curator client on the same ZooKeeper paths (internal/zktest/curator.go).
//
// Usage: java CuratorPeer <connectString> <sessionTimeoutMs>. Prints "ready" once connected, then
// reads one command a line, "<reqid> <verb> <args...>", and answers each with one line,
// "<reqid> ok [payload]" or "<reqid> err <message>". Commands naming a handle run on that
// handle's own thread (a Curator mutex belongs to the thread that acquired it), the others on a
// shared pool, so a blocked acquire never stops the reader. "close" or EOF closes the client and
// exits 0.
//
// A verb written with a leading "@" runs as without it and is answered "<reqid> ok <called>
// <returned> [payload]": System.nanoTime() right before the verb's call and right after it
// returned, on the handle's thread. On Linux, OpenJDK's nanoTime reads CLOCK_MONOTONIC, the
// clock the Go tests read too (zktest.Monotonic), so the tests order the peer's holds by the
// peer's own instants. "clock" answers System.nanoTime() alone, so that a test can check that
// both sides read the same clock.

import java.io.*;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.*;
import java.util.concurrent.*;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.atomic.*;
import org.apache.curator.framework.recipes.barriers.*;
import org.apache.curator.framework.recipes.cache.*;
import org.apache.curator.framework.recipes.leader.*;
import org.apache.curator.framework.recipes.locks.*;
import org.apache.curator.framework.recipes.queue.*;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.framework.recipes.shared.VersionedValue;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.retry.RetryNTimes;

public class CuratorPeer {
    interface Verb { String run(String[] a) throws Exception; }

    record Mutex(String path, InterProcessMutex lock) {}
    record Sem(String path, InterProcessSemaphoreV2 sem, SharedCount count, List<Lease> leases) {}
    record Rw(String path, InterProcessReadWriteLock lock) {}
    record Multi(List<String> parts, InterProcessMultiLock lock) {}
    // led counts the terms begun; release lets takeLeadership return once.
    record Sel(LeaderSelector selector, Semaphore led, Semaphore release) {}

    // Verbs whose first argument is a handle: they run on the handle's executor, in the order
    // sent (a latch's close after its start, even when the caller stopped waiting for the start).
    static final Set<String> HANDLE_VERBS = Set.of("mutex-acquire", "mutex-release", "sem-acquire",
        "sem-acquire-counted", "sem-release", "rw-acquire", "rw-release", "multi-acquire", "multi-release",
        "leaderselector-start", "leaderselector-close", "lock-node", "latch-start", "latch-close");

    final CuratorFramework client;
    final PrintStream out;
    final Map<String, Verb> verbs = new HashMap<>();
    final Map<String, ExecutorService> executors = new ConcurrentHashMap<>();
    final ExecutorService pool = Executors.newCachedThreadPool(daemon("pool"));
    // Each entry is read and written only on its handle's executor thread.
    final Map<String, Mutex> mutexes = new ConcurrentHashMap<>();
    final Map<String, Sem> sems = new ConcurrentHashMap<>();
    final Map<String, Rw> rws = new ConcurrentHashMap<>();
    final Map<String, Multi> multis = new ConcurrentHashMap<>();
    // LeaderLatch is thread-safe: its verbs run on the shared pool.
    final Map<String, LeaderLatch> latches = new ConcurrentHashMap<>();
    final Map<String, Sel> selectors = new ConcurrentHashMap<>();
    // A handle's DistributedDoubleBarrier, one member: its verbs run on the shared pool, one at a
    // time per handle as the tests send them (enter, then leave).
    final Map<String, DistributedDoubleBarrier> doubleBarriers = new ConcurrentHashMap<>();

    CuratorPeer(CuratorFramework client, PrintStream out) {
        this.client = client;
        this.out = out;
        queueVerbs();
        verbs.put("mutex-acquire", this::mutexAcquire);
        verbs.put("mutex-release", a -> { handle(mutexes, a[0]).lock().release(); return ""; });
        verbs.put("mutex-participants", a -> json(new InterProcessMutex(client, a[0]).getParticipantNodes()));
        verbs.put("sem-acquire", a -> semAcquire(a, null));
        verbs.put("sem-acquire-counted", a -> semAcquire(a, a[2]));
        verbs.put("sem-release", this::semRelease);
        verbs.put("sem-participants",
            a -> json(new InterProcessSemaphoreV2(client, a[0], Integer.parseInt(a[1])).getParticipantNodes()));
        verbs.put("count-get", a -> withCount(a[0], c -> Integer.toString(c.getCount())));
        verbs.put("count-set", a -> withCount(a[0], c -> { c.setCount(Integer.parseInt(a[1])); return ""; }));
        verbs.put("count-trySet", this::countTrySet);
        verbs.put("rw-acquire", this::rwAcquire);
        verbs.put("rw-release", a -> { lockOf(handle(rws, a[0]), a[1]).release(); return ""; });
        verbs.put("rw-participants",
            a -> json(lockOf(new Rw(a[0], new InterProcessReadWriteLock(client, a[0])), a[1]).getParticipantNodes()));
        verbs.put("rw-queue", a -> json(LockInternals.getSortedChildren(client, a[0], "__READ__", rwSorter(new InterProcessReadWriteLock(client, a[0])))));
        verbs.put("multi-acquire", this::multiAcquire);
        verbs.put("multi-release", a -> { handle(multis, a[0]).lock().release(); return ""; });
        verbs.put("revoke", a -> { Revoker.attemptRevoke(client, a[0]); return ""; });
        verbs.put("clock", a -> Long.toString(System.nanoTime()));
        verbs.put("lock-node", this::lockNode);
        verbs.put("session", a -> Long.toString(client.getZookeeperClient().getZooKeeper().getSessionId()));
        verbs.put("leaderlatch-participants", a -> participants(new LeaderLatch(client, a[0]).getParticipants()));
        verbs.put("leaderselector-start", this::selectorStart);
        // Not a handle verb: it waits while the handle's own thread leads.
        verbs.put("leaderselector-await",
            a -> handle(selectors, a[0]).led().tryAcquire(Long.parseLong(a[1]), TimeUnit.MILLISECONDS) ? "leader" : "timeout");
        verbs.put("leaderselector-release", a -> { handle(selectors, a[0]).release().release(); return ""; });
        verbs.put("leaderselector-has", a -> Boolean.toString(handle(selectors, a[0]).selector().hasLeadership()));
        verbs.put("leaderselector-close", a -> { selectors.remove(a[0]).selector().close(); return ""; });
        verbs.put("leaderselector-participants",
            a -> participants(new LeaderSelector(client, a[0], new LeaderSelectorListenerAdapter() {
                @Override public void takeLeadership(CuratorFramework c) {}
            }).getParticipants()));
        verbs.put("create-compressed", a -> client.create().compressed().creatingParentsIfNeeded()
            .forPath(a[0], a[1].getBytes(StandardCharsets.UTF_8)));
        verbs.put("cache-snapshot", this::cacheSnapshot);
        verbs.put("latch-start", this::latchStart);
        verbs.put("latch-await", a -> Boolean.toString(handle(latches, a[0]).await(Long.parseLong(a[1]), TimeUnit.MILLISECONDS)));
        verbs.put("latch-has", a -> Boolean.toString(handle(latches, a[0]).hasLeadership()));
        verbs.put("latch-path", a -> handle(latches, a[0]).getOurPath());
        verbs.put("latch-close", a -> { latches.remove(a[0]).close(); return ""; });
        // Distributed atomic values: a fresh instance per command, as they keep no state. "add"
        // takes path, delta, retries (RetryNTimes, 10 ms apart) and an optional lock path
        // (PromotedToLock with the same retries); "add" and "get" answer atomic(...).
        verbs.put("dal-add", a -> atomic(atomicLong(a).add(Long.parseLong(a[1]))));
        verbs.put("dal-get", a -> atomic(new DistributedAtomicLong(client, a[0], new RetryNTimes(0, 0)).get()));
        verbs.put("dal-force-set",
            a -> { new DistributedAtomicLong(client, a[0], new RetryNTimes(0, 0)).forceSet(Long.parseLong(a[1])); return ""; });
        verbs.put("dai-add", a -> atomic(atomicInt(a).add(Integer.parseInt(a[1]))));
        verbs.put("dai-get", a -> atomic(new DistributedAtomicInteger(client, a[0], new RetryNTimes(0, 0)).get()));
        // The byte form, in hex ("-" for no bytes: a missing node).
        verbs.put("dav-get", a -> hex(new DistributedAtomicValue(client, a[0], new RetryNTimes(0, 0)).get().preValue()));
        verbs.put("dav-force-set",
            a -> { new DistributedAtomicValue(client, a[0], new RetryNTimes(0, 0)).forceSet(unhex(a[1])); return ""; });
        // Barriers. A timeout in ms, -1 to wait without one.
        verbs.put("barrier-set", a -> { new DistributedBarrier(client, a[0]).setBarrier(); return ""; });
        verbs.put("barrier-remove", a -> { new DistributedBarrier(client, a[0]).removeBarrier(); return ""; });
        verbs.put("barrier-wait", this::barrierWait);
        verbs.put("ddb-enter", this::doubleBarrierEnter);
        verbs.put("ddb-leave", this::doubleBarrierLeave);
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: CuratorPeer <connectString> <sessionTimeoutMs>");
            System.exit(2);
        }
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err); // nothing but responses may reach the protocol stream
        CuratorFramework client = CuratorFrameworkFactory.builder().connectString(args[0])
            .sessionTimeoutMs(Integer.parseInt(args[1])).connectionTimeoutMs(15_000)
            .retryPolicy(new ExponentialBackoffRetry(100, 10)).build();
        client.start();
        if (!client.blockUntilConnected(60, TimeUnit.SECONDS)) {
            System.err.println("CuratorPeer: no connection to " + args[0] + " within 60 s");
            System.exit(1);
        }
        CuratorPeer peer = new CuratorPeer(client, out);
        peer.write("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (!line.isBlank()) peer.dispatch(line.trim().split(" +"));
        }
        peer.shutdown(null);
    }

    void dispatch(String[] f) {
        String id = f[0];
        if (f.length < 2) { write(id + " err missing verb"); return; }
        if (f[1].equals("close")) shutdown(id);
        boolean stamped = f[1].startsWith("@");
        String name = stamped ? f[1].substring(1) : f[1];
        Verb verb = verbs.get(name);
        if (verb == null) { write(id + " err unknown verb " + f[1]); return; }
        String[] a = Arrays.copyOfRange(f, 2, f.length);
        ExecutorService ex = pool;
        if (HANDLE_VERBS.contains(name) && a.length > 0) {
            ex = executors.computeIfAbsent(a[0], h -> Executors.newSingleThreadExecutor(daemon("handle-" + h)));
        }
        ex.execute(() -> {
            try {
                long called = System.nanoTime();
                String payload = verb.run(a);
                long returned = System.nanoTime();
                if (stamped) payload = called + " " + returned + (payload.isEmpty() ? "" : " " + payload);
                write(id + " ok" + (payload.isEmpty() ? "" : " " + payload));
            } catch (ArrayIndexOutOfBoundsException e) {
                write(id + " err missing arguments for " + f[1]);
            } catch (Throwable e) {
                write(id + " err " + (e.getClass().getSimpleName() + ": " + e.getMessage()).replaceAll("[\r\n]+", " "));
            }
        });
    }

    synchronized void write(String line) {
        out.println(line);
        out.flush();
    }

    // Interrupts every command still running, closes the client (its session and ephemeral nodes
    // go with it), answers id when not null and exits.
    void shutdown(String id) {
        executors.values().forEach(ExecutorService::shutdownNow);
        pool.shutdownNow();
        for (Sem s : sems.values()) if (s.count() != null) closeQuietly(s.count());
        client.close();
        if (id != null) write(id + " ok");
        out.flush();
        System.exit(0);
    }

    String mutexAcquire(String[] a) throws Exception {
        String h = a[0], path = a[1];
        long ms = Long.parseLong(a[2]);
        Mutex m = mutexes.get(h);
        if (m == null || !m.path().equals(path)) {
            if (m != null && m.lock().isAcquiredInThisProcess()) throw new IllegalStateException("handle " + h + " holds " + m.path());
            m = new Mutex(path, new InterProcessMutex(client, path));
            mutexes.put(h, m);
        }
        return timed(m.lock(), ms);
    }

    // a: handle, path, maxLeases (countPath when counted != null), qty, timeoutMs.
    String semAcquire(String[] a, String countPath) throws Exception {
        String h = a[0], path = a[1];
        int qty = Integer.parseInt(a[3]);
        long ms = Long.parseLong(a[4]);
        Sem s = sems.get(h);
        if (s != null && !s.leases().isEmpty() && !s.path().equals(path)) {
            throw new IllegalStateException("handle " + h + " holds leases on " + s.path());
        }
        if (s == null || s.leases().isEmpty()) { // (re)build so that maxLeases or countPath may change
            if (s != null && s.count() != null) closeQuietly(s.count());
            SharedCount count = null;
            InterProcessSemaphoreV2 sem;
            if (countPath != null) {
                count = new SharedCount(client, countPath, 0);
                count.start();
                sem = new InterProcessSemaphoreV2(client, path, count);
            } else {
                sem = new InterProcessSemaphoreV2(client, path, Integer.parseInt(a[2]));
            }
            s = new Sem(path, sem, count, new ArrayList<>());
            sems.put(h, s);
        }
        Collection<Lease> got = ms < 0 ? s.sem().acquire(qty) : s.sem().acquire(qty, ms, TimeUnit.MILLISECONDS);
        if (got == null) return "timeout";
        s.leases().addAll(got);
        List<String> names = new ArrayList<>();
        for (Lease l : got) names.add(l.getNodeName());
        return "acquired " + json(names);
    }

    // Closes each lease itself (returnAll would swallow the errors).
    String semRelease(String[] a) throws Exception {
        Iterator<Lease> it = handle(sems, a[0]).leases().iterator();
        while (it.hasNext()) {
            it.next().close();
            it.remove();
        }
        return "";
    }

    // A fresh SharedCount per call: start() reads the server's value, so no cached value is stale.
    interface CountFn { String apply(SharedCount c) throws Exception; }

    String withCount(String path, CountFn fn) throws Exception {
        SharedCount c = new SharedCount(client, path, 0);
        c.start();
        try {
            return fn.apply(c);
        } finally {
            closeQuietly(c);
        }
    }

    // a: handle, path, id. Starts a LeaderLatch (silent close mode) under the handle.
    String latchStart(String[] a) throws Exception {
        LeaderLatch l = new LeaderLatch(client, a[1], a[2]);
        if (latches.putIfAbsent(a[0], l) != null) throw new IllegalStateException("handle " + a[0] + " has a latch");
        l.start();
        return "";
    }

    // a: path, n, expectedVersion. VersionedValue has no public constructor in 5.4.0, so the
    // expected version is checked against the value just read, and trySetCount then sets with it.
    String countTrySet(String[] a) throws Exception {
        int n = Integer.parseInt(a[1]), version = Integer.parseInt(a[2]);
        return withCount(a[0], c -> {
            VersionedValue<Integer> v = c.getVersionedValue();
            return Boolean.toString(v.getVersion() == version && c.trySetCount(v, n));
        });
    }

    String rwAcquire(String[] a) throws Exception {
        String h = a[0], path = a[1];
        Rw r = rws.get(h);
        if (r == null || !r.path().equals(path)) {
            if (r != null && (r.lock().readLock().isAcquiredInThisProcess() || r.lock().writeLock().isAcquiredInThisProcess())) {
                throw new IllegalStateException("handle " + h + " holds " + r.path());
            }
            r = new Rw(path, new InterProcessReadWriteLock(client, path));
            rws.put(h, r);
        }
        return timed(lockOf(r, a[2]), Long.parseLong(a[3]));
    }

    // a: handle, timeoutMs, then the parts, each "[kind:]path" with kind mutex (the default),
    // read, write or sem (an InterProcessSemaphoreMutex). A handle keeps its multi-lock while it
    // names the same parts, so that acquiring again re-enters it, as in Curator.
    String multiAcquire(String[] a) throws Exception {
        String h = a[0];
        List<String> parts = Arrays.asList(Arrays.copyOfRange(a, 2, a.length));
        if (parts.isEmpty()) throw new IllegalArgumentException("multi-acquire needs parts");
        Multi m = multis.get(h);
        if (m == null || !m.parts().equals(parts)) {
            if (m != null && m.lock().isAcquiredInThisProcess()) throw new IllegalStateException("handle " + h + " holds " + m.parts());
            List<InterProcessLock> locks = new ArrayList<>();
            for (String part : parts) locks.add(multiPart(part));
            m = new Multi(parts, new InterProcessMultiLock(locks));
            multis.put(h, m);
        }
        return timed(m.lock(), Long.parseLong(a[1]));
    }

    InterProcessLock multiPart(String part) {
        int colon = part.indexOf(':');
        String kind = colon < 0 ? "mutex" : part.substring(0, colon), path = part.substring(colon + 1);
        switch (kind) {
            case "mutex": return new InterProcessMutex(client, path);
            case "read": return new InterProcessReadWriteLock(client, path).readLock();
            case "write": return new InterProcessReadWriteLock(client, path).writeLock();
            case "sem": return new InterProcessSemaphoreMutex(client, path);
            default: throw new IllegalArgumentException("part kind must be mutex, read, write or sem, not " + kind);
        }
    }

    // a: handle, kind (mutex, read or write). Answers "<node> <sessionId>": the node the handle's
    // thread holds the lock with (none: "-") and the client's current session, so that a test can
    // tell a hold on a node of a session Curator has left (CURATOR-604) from one of its live session.
    String lockNode(String[] a) throws Exception {
        InterProcessMutex lock = a[1].equals("mutex") ? handle(mutexes, a[0]).lock() : lockOf(handle(rws, a[0]), a[1]);
        Method path = InterProcessMutex.class.getDeclaredMethod("getLockPath"); // protected in 5.4
        path.setAccessible(true);
        Object node = path.invoke(lock);
        return (node == null ? "-" : node) + " " + client.getZookeeperClient().getZooKeeper().getSessionId();
    }


    // a: handle, path, id. The selector leads until leaderselector-release, its thread's
    // interruption (LeaderSelectorListenerAdapter cancels on SUSPENDED and LOST) or close; then
    // it queues again (autoRequeue).
    String selectorStart(String[] a) throws Exception {
        if (selectors.containsKey(a[0])) throw new IllegalStateException("handle " + a[0] + " has a selector");
        Semaphore led = new Semaphore(0), release = new Semaphore(0);
        LeaderSelector sel = new LeaderSelector(client, a[1], new LeaderSelectorListenerAdapter() {
            @Override public void takeLeadership(CuratorFramework c) throws Exception {
                led.release();
                release.acquire();
            }
        });
        sel.setId(a[2]);
        sel.autoRequeue();
        selectors.put(a[0], new Sel(sel, led, release));
        sel.start();
        return "";
    }

    // a: path, delta, retries, [lockPath].
    DistributedAtomicLong atomicLong(String[] a) {
        RetryNTimes retry = new RetryNTimes(Integer.parseInt(a[2]), 10);
        if (a.length < 4) return new DistributedAtomicLong(client, a[0], retry);
        return new DistributedAtomicLong(client, a[0], retry, PromotedToLock.builder().lockPath(a[3]).retryPolicy(retry).build());
    }

    DistributedAtomicInteger atomicInt(String[] a) {
        RetryNTimes retry = new RetryNTimes(Integer.parseInt(a[2]), 10);
        if (a.length < 4) return new DistributedAtomicInteger(client, a[0], retry);
        return new DistributedAtomicInteger(client, a[0], retry, PromotedToLock.builder().lockPath(a[3]).retryPolicy(retry).build());
    }

    // "<succeeded> <pre> <post> <optimisticTries> <promotedLockTries>".
    static String atomic(AtomicValue<?> v) {
        return v.succeeded() + " " + v.preValue() + " " + v.postValue() + " "
            + v.getStats().getOptimisticTries() + " " + v.getStats().getPromotedLockTries();
    }

    static String hex(byte[] b) {
        if (b == null) return "-";
        StringBuilder s = new StringBuilder();
        for (byte x : b) s.append(String.format("%02x", x & 0xff));
        return s.toString();
    }

    static byte[] unhex(String s) {
        if (s.equals("-")) return new byte[0];
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return b;
    }

    // a: path, timeoutMs. Answers "passed" once the barrier node is gone, or "timeout".
    String barrierWait(String[] a) throws Exception {
        DistributedBarrier b = new DistributedBarrier(client, a[0]);
        long ms = Long.parseLong(a[1]);
        if (ms < 0) {
            b.waitOnBarrier();
            return "passed";
        }
        return b.waitOnBarrier(ms, TimeUnit.MILLISECONDS) ? "passed" : "timeout";
    }

    // a: handle, path, memberQty, timeoutMs. A new member (a new node name) for the handle.
    String doubleBarrierEnter(String[] a) throws Exception {
        DistributedDoubleBarrier b = new DistributedDoubleBarrier(client, a[1], Integer.parseInt(a[2]));
        doubleBarriers.put(a[0], b);
        long ms = Long.parseLong(a[3]);
        if (ms < 0) {
            b.enter();
            return "entered";
        }
        return b.enter(ms, TimeUnit.MILLISECONDS) ? "entered" : "timeout";
    }

    // a: handle, timeoutMs.
    String doubleBarrierLeave(String[] a) throws Exception {
        DistributedDoubleBarrier b = handle(doubleBarriers, a[0]);
        long ms = Long.parseLong(a[1]);
        if (ms < 0) {
            b.leave();
            return "left";
        }
        return b.leave(ms, TimeUnit.MILLISECONDS) ? "left" : "timeout";
    }

    // Each participant as its id behind "*" for the leader, "-" for the others.
    static String participants(Collection<Participant> ps) {
        List<String> xs = new ArrayList<>();
        for (Participant p : ps) xs.add((p.isLeader() ? "*" : "-") + p.getId());
        return json(xs);
    }

    static InterProcessMutex lockOf(Rw r, String mode) {
        switch (mode) {
            case "read": return r.lock().readLock();
            case "write": return r.lock().writeLock();
            default: throw new IllegalArgumentException("mode must be read or write, not " + mode);
        }
    }

    // The sorter Curator's read/write lock judges its queue with: its driver, private in 5.4, so
    // read by reflection rather than copied.
    static LockInternalsSorter rwSorter(InterProcessReadWriteLock lock) throws Exception {
        Field internals = InterProcessMutex.class.getDeclaredField("internals");
        internals.setAccessible(true);
        Method driver = LockInternals.class.getDeclaredMethod("getDriver");
        driver.setAccessible(true);
        return (LockInternalsSorter) driver.invoke(internals.get(lock.readLock()));
    }

    static String timed(InterProcessLock lock, long ms) throws Exception {
        if (ms < 0) {
            lock.acquire();
            return "acquired";
        }
        return lock.acquire(ms, TimeUnit.MILLISECONDS) ? "acquired" : "timeout";
    }

    static <T> T handle(Map<String, T> m, String h) {
        T v = m.get(h);
        if (v == null) throw new IllegalStateException("unknown handle " + h);
        return v;
    }

    // cacheSnapshot loads a CuratorCache of a[0] and answers its nodes as
    // "path=data@version", sorted; a[1] "compressed" reads gzip data.
    String cacheSnapshot(String[] a) throws Exception {
        CuratorCache.Options[] opts = a.length > 1 && a[1].equals("compressed")
            ? new CuratorCache.Options[] {CuratorCache.Options.COMPRESSED_DATA} : new CuratorCache.Options[0];
        try (CuratorCache cache = CuratorCache.build(client, a[0], opts)) {
            CountDownLatch loaded = new CountDownLatch(1);
            cache.listenable().addListener(CuratorCacheListener.builder().forInitialized(loaded::countDown).build());
            cache.start();
            if (!loaded.await(30, TimeUnit.SECONDS)) throw new IllegalStateException("not initialized");
            List<String> out = new ArrayList<>();
            cache.stream().forEach(d -> out.add(d.getPath() + "=" + (d.getData() == null ? "" : new String(d.getData(), StandardCharsets.UTF_8)) + "@" + d.getStat().getVersion()));
            Collections.sort(out);
            return json(out);
        }
    }

    // ---- Queues: DistributedQueue and its priority, delay and id kinds, SimpleDistributedQueue. ----
    // Items are UTF-8 strings. A lock path of "-" means none. A consumer handle records what it took,
    // in order; a gated one waits in consumeMessage for a queue-release permit per item.
    record QueueHandle(QueueBase<String> queue, List<String> taken, Semaphore gate) {}
    final Map<String, QueueHandle> queues = new ConcurrentHashMap<>();

    static final QueueSerializer<String> QUEUE_STRINGS = new QueueSerializer<String>() {
        @Override public byte[] serialize(String s) { return s.getBytes(StandardCharsets.UTF_8); }
        @Override public String deserialize(byte[] b) { return new String(b, StandardCharsets.UTF_8); }
    };

    void queueVerbs() {
        verbs.put("queue-put", this::queuePut);
        verbs.put("queue-consume", this::queueConsume);
        verbs.put("queue-taken", this::queueTaken);
        verbs.put("queue-release", a -> { handle(queues, a[0]).gate().release(Integer.parseInt(a[1])); return ""; });
        verbs.put("queue-close", a -> { queues.remove(a[0]).queue().close(); return ""; });
        verbs.put("queue-remove", a -> {
            try (DistributedIdQueue<String> q = queueBuilder(null, a[0], a[1]).buildIdQueue()) {
                q.start();
                return Integer.toString(q.remove(a[2]));
            }
        });
        verbs.put("simple-offer", a -> { new SimpleDistributedQueue(client, a[0]).offer(a[1].getBytes(StandardCharsets.UTF_8)); return ""; });
        verbs.put("simple-poll", a -> simpleItem(new SimpleDistributedQueue(client, a[0]).poll(Long.parseLong(a[1]), TimeUnit.MILLISECONDS)));
        verbs.put("simple-peek", a -> simpleItem(new SimpleDistributedQueue(client, a[0]).peek()));
    }

    static String simpleItem(byte[] b) { return b == null ? "empty" : "item " + new String(b, StandardCharsets.UTF_8); }

    QueueBuilder<String> queueBuilder(QueueConsumer<String> consumer, String path, String lockPath) {
        QueueBuilder<String> b = QueueBuilder.builder(client, consumer, QUEUE_STRINGS, path).putInBackground(false);
        return lockPath.equals("-") ? b : b.lockPath(lockPath);
    }

    static <T> MultiItem<T> multiItem(List<T> items) {
        Iterator<T> it = items.iterator();
        return () -> it.hasNext() ? it.next() : null;
    }

    // a: path, lockPath, kind (queue, priority, delay or id), arg (the priority, the epoch in ms, the id;
    // "-" for queue), items. Several items go in one node (putMulti), but for an id queue, which has none.
    String queuePut(String[] a) throws Exception {
        List<String> items = Arrays.asList(Arrays.copyOfRange(a, 4, a.length));
        if (items.isEmpty()) throw new IllegalArgumentException("queue-put needs items");
        QueueBuilder<String> b = queueBuilder(null, a[0], a[1]);
        String arg = a[3];
        switch (a[2]) {
            case "queue":
                try (DistributedQueue<String> q = b.buildQueue()) {
                    q.start();
                    if (items.size() == 1) q.put(items.get(0)); else q.putMulti(multiItem(items));
                }
                break;
            case "priority":
                try (DistributedPriorityQueue<String> q = b.buildPriorityQueue(1)) {
                    q.start();
                    if (items.size() == 1) q.put(items.get(0), Integer.parseInt(arg)); else q.putMulti(multiItem(items), Integer.parseInt(arg));
                }
                break;
            case "delay":
                try (DistributedDelayQueue<String> q = b.buildDelayQueue()) {
                    q.start();
                    if (items.size() == 1) q.put(items.get(0), Long.parseLong(arg)); else q.putMulti(multiItem(items), Long.parseLong(arg));
                }
                break;
            case "id":
                try (DistributedIdQueue<String> q = b.buildIdQueue()) {
                    q.start();
                    for (String item : items) q.put(item, arg);
                }
                break;
            default: throw new IllegalArgumentException("kind must be queue, priority, delay or id, not " + a[2]);
        }
        return "";
    }

    // a: handle, path, lockPath, kind, and "gated" to make each consumeMessage wait for a permit.
    // A priority queue's consumer refreshes after each item (minItemsBeforeRefresh 1).
    String queueConsume(String[] a) throws Exception {
        if (queues.containsKey(a[0])) throw new IllegalStateException("handle " + a[0] + " has a queue");
        List<String> taken = new ArrayList<>();
        Semaphore gate = new Semaphore(0);
        boolean gated = a.length > 4 && a[4].equals("gated");
        QueueConsumer<String> consumer = new QueueConsumer<String>() {
            @Override public void consumeMessage(String item) throws Exception {
                synchronized (taken) { taken.add(item); taken.notifyAll(); }
                if (gated) gate.acquire();
            }
            @Override public void stateChanged(CuratorFramework c, org.apache.curator.framework.state.ConnectionState s) {}
        };
        QueueBuilder<String> b = queueBuilder(consumer, a[1], a[2]);
        QueueBase<String> q;
        switch (a[3]) {
            case "queue": q = b.buildQueue(); break;
            case "priority": q = b.buildPriorityQueue(1); break;
            case "delay": q = b.buildDelayQueue(); break;
            case "id": q = b.buildIdQueue(); break;
            default: throw new IllegalArgumentException("kind must be queue, priority, delay or id, not " + a[3]);
        }
        queues.put(a[0], new QueueHandle(q, taken, gate));
        q.start();
        return "";
    }

    // a: handle, n, timeoutMs. Waits until the consumer has taken n items or the time has run out, and
    // answers every item it has taken, in order.
    String queueTaken(String[] a) throws Exception {
        List<String> taken = handle(queues, a[0]).taken();
        int n = Integer.parseInt(a[1]);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Long.parseLong(a[2]));
        synchronized (taken) {
            for (long left; taken.size() < n && (left = deadline - System.nanoTime()) > 0; ) {
                taken.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
            return json(new ArrayList<>(taken));
        }
    }
    // ---- end of queues ----

    static String json(Collection<String> xs) {
        StringBuilder b = new StringBuilder("[");
        for (String x : xs) {
            if (b.length() > 1) b.append(',');
            b.append('"');
            for (char ch : x.toCharArray()) {
                if (ch == '"' || ch == '\\') b.append('\\').append(ch);
                else if (ch < 0x20) b.append(String.format("\\u%04x", (int) ch));
                else b.append(ch);
            }
            b.append('"');
        }
        return b.append(']').toString();
    }

    static void closeQuietly(Closeable c) {
        try { c.close(); } catch (IOException e) { System.err.println("CuratorPeer: close: " + e); }
    }

    static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, "peer-" + name);
            t.setDaemon(true);
            return t;
        };
    }
}
