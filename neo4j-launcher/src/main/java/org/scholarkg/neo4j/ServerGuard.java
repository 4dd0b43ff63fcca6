package org.scholarkg.neo4j;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

import com.sun.management.GarbageCollectionNotificationInfo;

import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Result;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.api.KernelTransactionHandle;
import org.neo4j.kernel.api.TerminationMark;
import org.neo4j.kernel.api.query.ExecutingQuery;
import org.neo4j.kernel.impl.api.KernelTransactions;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.monitoring.DatabaseHealth;

/**
 * Stops what Neo4j's own limits cannot: a query that takes the heap inside one row, a row that
 * goes on computing after its transaction ended, and a GDS catalogue that fills the heap.
 *
 * <p>Why: Neo4j checks a transaction's time limit between rows and counts the memory of its
 * operators (collect, sort, distinct…), not of one row's expressions. {@code RETURN
 * size(reduce(s = [], x IN range(1, 100000000) | s + x))} grows one list inside one row: its
 * transaction ends at the time limit, the row goes on, {@code db.memory.transaction.max} never
 * sees it, and the JVM died of {@code OutOfMemoryError} 39 s later (1 GiB heap, measured on
 * 5.26); a string grown by {@code reduce} computes for hours after its transaction ended. GDS
 * graphs live on the heap outside every transaction limit. Nothing in Neo4j stops these; this
 * guard, running inside the server's JVM, does. Three rules:
 *
 * <ol>
 *   <li><b>heap</b>: after a garbage collection that leaves more than {@code heapShare} of the
 *       maximum heap in use, the Bolt thread (every client query: the Browser, {@code scholarkg
 *       cypher}, the explorer, the code) that allocated the most in the last half second, at
 *       least {@link #MIN_ALLOCATED}, is stopped (only while it evaluates the query: {@link
 *       #stoppableAt});
 *   <li><b>overrun</b>: a query whose transaction was ended (time limit, {@code TERMINATE
 *       TRANSACTION}) and whose thread is still running it {@code overrunSeconds} later is
 *       stopped, and stopped again each second its thread still evaluates it;
 *   <li><b>GDS catalogue</b>: graphs that scholarkg did not create (names not starting with
 *       {@code scholarkg_}) may hold at most {@code gdsShare} of the heap together: past it the
 *       oldest are dropped; and when a collection leaves the heap above {@code heapShare} with
 *       no query to blame, the oldest graph of all is dropped (scholarkg projects its own again
 *       when it next needs them).
 * </ol>
 *
 * <p>A stopped query's thread unwinds with a {@link QueryStopped} thrown into it, as it would
 * with an {@code OutOfMemoryError} of its own: its transaction is rolled back, the client gets
 * the error with a message saying why, the memory is freed, and every other query and the
 * server go on. A line {@code SCHOLARKG-GUARD: …} on the launcher's output says what was done.
 *
 * <p>Throwing into another thread is {@code Thread.stop0}, which Java 17 has (opened by
 * {@code --add-opens java.base/java.lang=ALL-UNNAMED}); later Javas removed it (Java 25 has
 * neither it nor a working {@code Thread.stop()}). There the guard says so in its first line
 * and keeps its catalogue rule; a query that takes the heap ends the server on
 * {@code -XX:+ExitOnOutOfMemoryError}, and the next scholarkg command starts it again on its
 * store.
 */
final class ServerGuard {
    /** a thread is stopped by the heap rule only if it allocated at least this much lately */
    static final long MIN_ALLOCATED = 32L << 20;
    /**
     * the heap rule acts when the heap left after a collection grew this much above the lowest
     * reading since the heap went high (or since the rule last stopped a query)
     */
    static final long GROWTH = 48L << 20;
    /** … or when it fills more than this share of the heap */
    static final double NEARLY_FULL = 0.94;
    /**
     * for {@link #RECOVERY_NANOS} after a query was stopped, the heap rule blames only a thread
     * that allocated at least this much since the last sample: the stopped query's garbage is
     * still in the heap until the concurrent collection frees it, and an ordinary query that
     * allocated 32 MiB then was stopped for it (a two-row MERGE right after the heap test). A
     * runaway row allocates far more (178–447 MiB a sample in the hostile runs).
     */
    static final long RECOVERY_MIN_ALLOCATED = 128L << 20;
    /**
     * with the heap {@link #NEARLY_FULL} (and, while recovering, grown past where it was at
     * the last stop), a thread that allocated this much is enough: the collector then takes
     * most of the CPU and a runaway allocates less, 32 MiB in a window no longer (with five
     * GDS graphs holding 72 % of the heap, a list grower went on from 91 % to 95 % blamed on
     * nobody, and the next one ended the JVM)
     */
    static final long NEARLY_FULL_MIN_ALLOCATED = 8L << 20;
    static final long RECOVERY_NANOS = 5_000_000_000L;
    /** after stopping a query, the catalogue rule waits this long before it drops a graph */
    static final long COOLDOWN_NANOS = 2_000_000_000L;
    static final long SAMPLE_MILLIS = 500;
    /**
     * the overrun rule looks this often (a list of transactions: no thread is paused for it):
     * a row growing a list adds ~0.7 GB a second, and each tenth of a second it lives on is
     * more for the collector to copy while every client waits
     */
    static final long OVERRUN_TICK_MILLIS = 100;
    /**
     * the overrun rule stops a query again if its thread is still evaluating it this long after
     * the last stop: the error was caught somewhere in the query's code, and the row went on
     * (a CI run: a string grower still listed 6 s after its time limit)
     */
    static final long RESTOP_NANOS = 1_000_000_000L;
    /** packages whose frames on top of a Bolt worker's stack mean it is evaluating a query */
    static final String[] QUERY_ENGINE = {
        "org.neo4j.cypher.internal.runtime.", "org.neo4j.cypher.operations.", "org.neo4j.values.",
        "org.neo4j.gds.", "org.neo4j.procedure.",
    };
    /** methods a thread must not be stopped in: it is ending something or handling an error */
    static final Pattern ENDING = Pattern.compile(
            "(?i)rollback|close|commit|terminat|release|dispose|cleanup|fail|error|exception|finish|unlock");
    static final String BOLT = "org.neo4j.bolt.";
    /**
     * packages a thread is not stopped in, wherever they are on its stack: code that keeps state
     * shared between threads in lock-free fields and wraps any {@code Throwable} it meets. GDS
     * claims its projection builders from a stormpot pool: a CI run's stop landed in the pool's
     * expiry check, which answered {@code PoolException: Got exception when checking whether an
     * object had expired}, so the client never learnt that the guard had stopped its query.
     *
     * <p>This narrows that, it does not close it: HotSpot raises the error at the thread's next
     * poll after the stop, a few microseconds on, and a projection's row takes microseconds, so
     * a thread looked at outside the pool may be in it again when the error lands. Suspending
     * the thread for the look and the stop was tried (Java 17 still has {@code suspend}): in a
     * measured loop the error landed where the look saw the thread no more often than without
     * it (8 of 20 both ways), since it is raised at the next poll after the resume, and a
     * suspended thread holding a lock is a risk the guard should not take for nothing.
     */
    static final String[] SHARED_STATE = {"stormpot."};
    static final String BOLT_WORKER = "neo4j.BoltWorker";
    static final String LINE = "SCHOLARKG-GUARD";
    static final String OWN_GRAPHS = "scholarkg_";

    private final DatabaseManagementService dbms;
    private final double heapShare;
    private final long overrunNanos;
    private final double gdsShare;
    private final long maxHeap = Runtime.getRuntime().maxMemory();
    private final Set<String> heapPools = new HashSet<>();
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private Map<Long, Long> lastSample = new HashMap<>();
    /**
     * the sample before {@link #lastSample}: what a thread allocated is counted from it, over
     * half a second to a second, not from the last sample alone (a collection 10 ms after a
     * sample saw 10 ms of allocation, and blamed nobody)
     */
    private Map<Long, Long> olderSample = new HashMap<>();
    /** the heap in use after the collection at which the heap rule last stopped a query */
    private long usedAtStop;
    /** per thread the guard stopped: its allocated-bytes counter when it was stopped */
    private final Map<Long, Long> stoppedAt = new HashMap<>();
    /** per thread the guard stopped: when (System.nanoTime) */
    private final Map<Long, Long> stoppedWhen = new HashMap<>();
    /**
     * the queries the overrun rule stopped (internal ids, the last 1000) and when it last did:
     * one is stopped again only if its thread is still evaluating it {@link #RESTOP_NANOS}
     * later ({@link #stoppableAt}); a stopped row holding gigabytes may unwind slowly (the
     * collector copies what it held), its transaction still listed as ended
     */
    private final Map<Long, Long> stoppedQueries = lastThousand();
    private long lastAction = Long.MIN_VALUE;
    /** why {@link #stoppableAt} last refused a thread (the guard's methods hold its lock) */
    private String refusal = "";
    /** the overrun queries the guard said it could not stop yet (ids, the last 1000) */
    private final Set<Long> notStoppedSaid = java.util.Collections.newSetFromMap(lastThousand());

    /** A map that keeps its last 1000 entries (what the guard remembers of past queries). */
    private static <V> Map<Long, V> lastThousand() {
        return new java.util.LinkedHashMap<Long, V>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, V> eldest) {
                return size() > 1000;
            }
        };
    }
    /** when the heap rule last stopped a query */
    private long lastStop = Long.MIN_VALUE;
    private boolean cannotStop;
    private volatile boolean heapHigh;
    private volatile long usedAfterGc;
    /**
     * the lowest heap-after-collection reading since the heap went above {@link #heapShare}
     * (the last reading below it included), or since the last stop
     */
    private long floorWhileHigh = Long.MAX_VALUE;
    /** a query was stopped by the heap rule: collect its garbage at the next tick */
    private volatile boolean reclaim;

    ServerGuard(DatabaseManagementService dbms, double heapShare, double overrunSeconds, double gdsShare) {
        this.dbms = dbms;
        this.heapShare = heapShare;
        this.overrunNanos = (long) (overrunSeconds * 1e9);
        this.gdsShare = gdsShare;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                heapPools.add(pool.getName());
            }
        }
    }

    /** Starts the guard: a listener on every collection and a thread that checks twice a second. */
    void install() {
        cannotStop = stop0() == null;
        // one line the Python side reads (server.json, db status): what this guard can do
        say(String.format("on (heap %s, overrun %s, GDS catalogue %s); stops a query: %s",
                heapShare > 0 ? heapShare + " of it" : "off",
                overrunNanos > 0 ? overrunNanos / 1e9 + " s" : "off",
                gdsShare > 0 ? gdsShare + " of the heap" : "off",
                cannotStop ? "no (Java " + Runtime.version().feature() + " cannot)" : "yes"));
        threads.setThreadAllocatedMemoryEnabled(true);
        if (heapShare > 0 || gdsShare > 0) {
            for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                if (gc instanceof NotificationEmitter emitter) {
                    emitter.addNotificationListener(this::onCollection, null, null);
                }
            }
        }
        Thread loop = new Thread(() -> {
            long lastLook = 0;
            long lastSampleAt = System.nanoTime();
            while (true) {
                try {
                    Thread.sleep(OVERRUN_TICK_MILLIS);
                    if (overrunNanos > 0) {
                        stopOverruns();
                    }
                    if (System.nanoTime() - lastSampleAt < SAMPLE_MILLIS * 1_000_000L) {
                        continue;
                    }
                    lastSampleAt = System.nanoTime();
                    if (reclaim) {
                        // the stopped query has unwound: a collection now frees what it
                        // held, instead of leaving it in the old generation, where the next
                        // collections would count it as in use and blame the next query
                        // that allocates. A concurrent cycle
                        // (-XX:+ExplicitGCInvokesConcurrent on the JVM's command line): the
                        // regions it held are freed without stopping every other query. On a
                        // thread of its own: System.gc() returns only when that cycle ends
                        // (seconds, with gigabytes to mark), and this loop stopped nothing
                        // meanwhile (a string grower sent right after a heap test was stopped
                        // 4.4 s after its end, not 1 s)
                        reclaim = false;
                        Thread collect = new Thread(System::gc, "scholarkg-guard-collect");
                        collect.setDaemon(true);
                        collect.start();
                    }
                    sample();
                    endIfPanicked();
                    // the catalogue (a 20 ms query) only when the last collection left more of the
                    // heap in use than the catalogue may hold: at most every 2 s, at once when
                    // the heap is full
                    long now = System.nanoTime();
                    if (gdsShare > 0 && (heapHigh
                            || (usedAfterGc > gdsShare * maxHeap && now - lastLook > COOLDOWN_NANOS))) {
                        lastLook = now;
                        boundCatalogue();
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    say("check failed: " + e);  // never let the guard die of one bad check
                }
            }
        }, "scholarkg-guard");
        loop.setDaemon(true);
        loop.start();
    }

    // -- the heap rule --------------------------------------------------------------------

    private synchronized void sample() {
        olderSample = lastSample;
        lastSample = new HashMap<>();
        for (Thread t : boltWorkers()) {
            long bytes = threads.getThreadAllocatedBytes(t.getId());
            if (bytes >= 0) {
                lastSample.put(t.getId(), bytes);
            }
        }
    }

    private static List<Thread> boltWorkers() {
        List<Thread> out = new ArrayList<>();
        for (Thread t : liveThreads()) {
            if (t.getName().startsWith(BOLT_WORKER)) {
                out.add(t);
            }
        }
        return out;
    }

    /**
     * Every live thread of the JVM, from its thread groups.
     *
     * <p>Why not {@code Thread.getAllStackTraces().keySet()}: that walks every thread's stack
     * at a safepoint, every thread of the JVM held meanwhile (0.3-7 ms each time here, more
     * with a deep stack), and the guard lists the threads at least twice a second; their
     * thread groups list them without stopping any.
     */
    private static List<Thread> liveThreads() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] found = new Thread[root.activeCount() + 64];
        int n = root.enumerate(found, true);
        while (n == found.length) {  // more threads than room: started meanwhile
            found = new Thread[found.length * 2];
            n = root.enumerate(found, true);
        }
        return Arrays.asList(found).subList(0, n);
    }

    private void onCollection(Notification n, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        long used = 0;
        for (Map.Entry<String, MemoryUsage> e : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
            if (heapPools.contains(e.getKey())) {
                used += e.getValue().getUsed();
            }
        }
        usedAfterGc = used;
        heapHigh = heapShare > 0 && used > heapShare * maxHeap;
        // A runaway row keeps what it allocates: the heap left after each collection grows.
        // Uncollected old-generation garbage reads high too, but flat (1806, 1811, 1811 MiB
        // of 2048 while a test suite ran ordinary queries, which were stopped for it): blame
        // a thread only while the heap grows, or when it is nearly gone. Growth counts from
        // the lowest reading since the heap went high, not from the last reading: with the
        // heap nearly full the collector shrinks the young generation, each collection then
        // promotes less than GROWTH, and a runaway crept from 85 % to 94 % while the server
        // did little but collect (a CI run: no answer to any client for 4 s).
        boolean growing;
        synchronized (this) {
            if (!heapHigh) {
                floorWhileHigh = used;  // a climb past the share counts from here
                return;
            }
            growing = used - Math.min(floorWhileHigh, used) >= GROWTH || used > NEARLY_FULL * maxHeap;
            floorWhileHigh = Math.min(floorWhileHigh, used);
        }
        if (growing) {
            stopHeapHog(used);
        }
    }

    private synchronized void stopHeapHog(long used) {
        if (cannotStop) {
            return;
        }
        // No pause after a stop: a second query that takes the heap may start at once (the
        // hostile suite's next query did, and the heap was gone in 0.3 s while a 2 s pause
        // held this rule back). A thread stopped before is passed over until it has done
        // MIN_ALLOCATED of new work: while it unwinds, what it held is not yet freed.
        Thread victim = null;
        String where = null;
        boolean recovering = lastStop != Long.MIN_VALUE && System.nanoTime() - lastStop < RECOVERY_NANOS;
        long least = recovering ? RECOVERY_MIN_ALLOCATED : MIN_ALLOCATED;
        if (used > NEARLY_FULL * maxHeap && (!recovering || used >= usedAtStop + GROWTH)) {
            least = NEARLY_FULL_MIN_ALLOCATED;
        }
        long most = least - 1;
        for (Thread t : boltWorkers()) {
            // a thread born since the last sample (a new connection's worker) counts all it
            // allocated: a query on it filled most of a 1 GiB heap before it was looked at
            Long before = olderSample.getOrDefault(t.getId(), lastSample.getOrDefault(t.getId(), 0L));
            long bytes = threads.getThreadAllocatedBytes(t.getId());
            if (bytes < 0 || bytes - before <= most) {
                continue;
            }
            Long stopped = stoppedAt.get(t.getId());
            if (stopped != null && bytes - stopped < MIN_ALLOCATED) {
                continue;
            }
            String at = stoppableAt(t);
            if (at == null) {
                continue;  // past its query, or ending it: the next collection looks again
            }
            most = bytes - before;
            victim = t;
            where = at;
        }
        if (victim == null) {
            return;  // nothing to blame: the catalogue rule looks at GDS graphs
        }
        String message = String.format(
                "scholarkg server guard: the query was stopped: it kept %d MiB of the server's "
                        + "%d MiB heap in use (Neo4j counts neither time nor memory inside one "
                        + "row's expressions, so neither its time limit nor "
                        + "db.memory.transaction.max could stop it)",
                used >> 20, maxHeap >> 20);
        stop(victim, message, String.format(
                "%d MiB of the %d MiB heap in use after a collection; stopped the query of '%s' "
                        + "in %s (it allocated %d MiB in the last 0.5-1 s)",
                used >> 20, maxHeap >> 20, victim.getName(), where, most >> 20));
        reclaim = !cannotStop;
        lastStop = System.nanoTime();
        usedAtStop = used;
        // what the stopped query held is counted until the collection frees it: the next
        // growth counts from the reading after that
        floorWhileHigh = Long.MAX_VALUE;
    }

    /**
     * Where {@code t} evaluates a query now (its top query-engine frame, e.g. {@code
     * ReduceFunction.compute}), or null if it must not be stopped now.
     *
     * <p>Why: the error thrown into a thread lands where it is when it next polls, and
     * {@code Thread.stop} is deprecated because that can be inside a lock, leaving shared state
     * half-changed. A thread is stopped only while, above the Bolt code that called into the
     * query, it runs query-engine code ({@link #QUERY_ENGINE}), holds no monitor taken there,
     * and is in no method that ends something or handles an error ({@link #ENDING}: commit,
     * rollback, close…). Not a thread that has finished its query and is back in Bolt's own
     * code: the overrun rule once stopped one there (its transaction still listed as ended
     * while Bolt answered), and a stop in Bolt's cleanup left the transaction listed for good.
     * Refused now means asked again at the next look.
     *
     * <p>The monitors come from the thread's own stack. The {@code java.util.concurrent} locks
     * it owns are deliberately not asked for ({@code lockedSynchronizers} false): the JVM finds
     * them by walking the whole heap with every thread stopped, and the heap is full exactly
     * when this is asked (a list grower's 1.8 GiB: 0.7-0.8 s with no client answered here, and
     * a CI run saw the server answer no one for 5.4 s after a stop). Such a lock is taken with
     * {@code lock(); try {…} finally {unlock();}}, so the error thrown in unwinds through the
     * {@code finally} and releases it; the check was never the safety it looked like anyway,
     * since the thread may take a lock between this look and the stop.
     */
    private String stoppableAt(Thread t) {
        ThreadInfo[] infos = threads.getThreadInfo(new long[] {t.getId()}, true, false);
        if (infos.length == 0 || infos[0] == null
                || infos[0].getThreadState() != Thread.State.RUNNABLE) {
            refusal = "its thread is " + (infos.length == 0 || infos[0] == null
                    ? "gone" : infos[0].getThreadState());
            return null;
        }
        ThreadInfo info = infos[0];
        StackTraceElement[] frames = info.getStackTrace();
        int bolt = -1;
        for (int i = 0; i < frames.length && bolt < 0; i++) {
            if (frames[i].getClassName().startsWith(BOLT)) {
                bolt = i;
            }
        }
        if (bolt < 0) {
            refusal = "not running a Bolt job";
            return null;
        }
        for (MonitorInfo m : info.getLockedMonitors()) {
            if (m.getLockedStackDepth() < bolt) {
                refusal = "it holds the monitor of a " + m.getClassName() + " at " + top(frames);
                return null;
            }
        }
        String where = null;
        for (int i = 0; i < bolt; i++) {
            StackTraceElement f = frames[i];
            if (ENDING.matcher(f.getMethodName()).find()) {
                refusal = "it is in " + f.getClassName() + "." + f.getMethodName();
                return null;
            }
            for (String shared : SHARED_STATE) {
                if (f.getClassName().startsWith(shared)) {
                    refusal = "it is in " + f.getClassName() + "." + f.getMethodName()
                            + " (state shared between threads)";
                    return null;
                }
            }
            if (where == null) {
                for (String engine : QUERY_ENGINE) {
                    if (f.getClassName().startsWith(engine)) {
                        String cls = f.getClassName();
                        where = cls.substring(cls.lastIndexOf('.') + 1) + "." + f.getMethodName();
                        break;
                    }
                }
            }
        }
        if (where == null) {
            refusal = "no query-engine frame above Bolt's: " + top(frames);
        }
        return where;
    }

    /** the top three frames, for a line saying why a thread was not stopped */
    private static String top(StackTraceElement[] frames) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < Math.min(3, frames.length); i++) {
            out.append(i == 0 ? "" : " < ").append(frames[i].getClassName())
                    .append('.').append(frames[i].getMethodName());
        }
        return out.toString();
    }

    // -- the overrun rule -----------------------------------------------------------------

    /** whether the guard stopped {@code t} within the overrun delay (it may still unwind) */
    private boolean stoppedLately(Thread t, long now) {
        Long when = stoppedWhen.get(t.getId());
        return when != null && now - when < Math.max(overrunNanos, COOLDOWN_NANOS);
    }

    private synchronized void stopOverruns() {
        if (cannotStop) {
            return;
        }
        long now = System.nanoTime();
        for (KernelTransactionHandle handle : activeTransactions()) {
            Optional<TerminationMark> mark = handle.terminationMark();
            Optional<ExecutingQuery> query = handle.executingQuery();
            // not handle.isClosing(): a client that gave up on the query closes its transaction
            // from Bolt's I/O side while the row computes on (the explorer does at its limit +
            // 1 s); a CI run's string grower computed on unstopped, its transaction closing.
            // Where the worker itself is closing it, stoppableAt refuses (rollback, close…)
            if (mark.isEmpty() || query.isEmpty() || handle.isCommitting()) {
                continue;
            }
            long late = now - mark.get().getTimestampNanos();
            if (late < overrunNanos) {
                continue;
            }
            long id = query.get().internalQueryId();
            Long last = stoppedQueries.get(id);
            if (last != null && now - last < RESTOP_NANOS) {
                continue;
            }
            Thread thread = threadNamed(query.get().threadExecutingTheQueryName());
            if (thread == null || (last == null && stoppedLately(thread, now))) {
                continue;  // stopped by the heap rule a moment ago: unwinding
            }
            String where = stoppableAt(thread);
            if (where == null) {
                if (late > 3 * overrunNanos && notStoppedSaid.add(id)) {
                    // said once a query: why a row past its end still runs (none said it before)
                    say(String.format("the query of '%s' still runs %.1f s after its transaction "
                            + "ended, not stopped yet: %s", thread.getName(), late / 1e9, refusal));
                }
                continue;
            }
            stoppedQueries.put(id, now);
            String reason = mark.get().getReason().code().serialize();
            stop(thread, String.format(
                    "scholarkg server guard: the query was stopped %.1f s after its transaction "
                            + "ended (%s): Neo4j checks its time limit between rows only, and "
                            + "this row went on computing",
                    late / 1e9, reason), String.format(
                    "stopped%s the query of '%s' in %s, still running %.1f s after its transaction "
                            + "ended (%s)",
                    last == null ? "" : " again", thread.getName(), where, late / 1e9, reason));
        }
    }

    private List<KernelTransactionHandle> activeTransactions() {
        List<KernelTransactionHandle> out = new ArrayList<>();
        for (String name : dbms.listDatabases()) {
            try {
                GraphDatabaseService db = dbms.database(name);
                if (db instanceof GraphDatabaseAPI api && db.isAvailable(0)) {
                    out.addAll(api.getDependencyResolver()
                            .resolveDependency(KernelTransactions.class)
                            .activeTransactions());
                }
            } catch (RuntimeException e) {
                // a database stopping or starting: next time
            }
        }
        return out;
    }

    private static Thread threadNamed(String name) {
        for (Thread t : liveThreads()) {
            if (t.getName().equals(name)) {
                return t;
            }
        }
        return null;
    }

    // -- a panicked database ----------------------------------------------------------------

    /**
     * Ends the JVM when a database has panicked (Neo4j refuses every transaction on it until a
     * restart), so that the next scholarkg command starts the server again on its store.
     *
     * <p>Why: the server runs without {@code -XX:+ExitOnOutOfMemoryError} when this guard can
     * stop a query (store/neo4j/server.py says why: an allocation that fails inside one query
     * ends that query, as Neo4j is built for, not the server). An {@code OutOfMemoryError}
     * that lands in the kernel instead panics its database; that server answers nothing
     * useful again, and ending it is what the flag did.
     */
    private void endIfPanicked() {
        for (String name : dbms.listDatabases()) {
            DatabaseHealth health;
            try {
                GraphDatabaseService db = dbms.database(name);
                if (!(db instanceof GraphDatabaseAPI api)) {
                    continue;
                }
                health = api.getDependencyResolver().resolveDependency(DatabaseHealth.class);
            } catch (RuntimeException e) {
                continue;  // a database stopping or starting: next time
            }
            if (health == null) {
                continue;
            }
            sayOnce("watches database '" + name + "' for a panic");
            if (!health.hasNoPanic()) {
                say("database '" + name + "' has panicked (" + health.causeOfPanic()
                        + "): ending the server, the next scholarkg command starts it again");
                Runtime.getRuntime().halt(3);
            }
        }
    }

    // -- the GDS catalogue rule -----------------------------------------------------------

    /** One GDS graph: its name, database, size and when it was made. */
    record Graph(String name, String database, long bytes, String created) {}

    private void boundCatalogue() {
        List<Graph> graphs = catalogue();
        if (graphs == null || graphs.isEmpty()) {
            return;
        }
        graphs.sort((a, b) -> a.created().compareTo(b.created()));
        long others = 0;
        for (Graph g : graphs) {
            if (!g.name().startsWith(OWN_GRAPHS)) {
                others += g.bytes();
            }
        }
        long budget = (long) (gdsShare * maxHeap);
        for (Graph g : graphs) {
            if (others <= budget) {
                break;
            }
            if (!g.name().startsWith(OWN_GRAPHS) && drop(g, String.format(
                    "GDS graphs not made by scholarkg held %d MiB, over their %d MiB (%.0f %% of "
                            + "the heap)", others >> 20, budget >> 20, gdsShare * 100))) {
                others -= g.bytes();
            }
        }
        if (heapHigh && !coolingDown()) {
            // the heap is full after a collection and no query was to blame: the oldest graph,
            // others' first
            Graph oldest = graphs.stream().filter(g -> !g.name().startsWith(OWN_GRAPHS)).findFirst()
                    .orElse(graphs.get(0));
            if (drop(oldest, "the heap was full after a collection")) {
                lastAction = System.nanoTime();
                heapHigh = false;
            }
        }
    }

    private List<Graph> catalogue() {
        // GDS lists the graphs of every database from any one (not from "system")
        for (String name : dbms.listDatabases()) {
            if (name.equals("system")) {
                continue;
            }
            List<Graph> out = new ArrayList<>();
            try (InternalTransaction tx = asGuard(name);
                    Result result = tx.execute(
                            "CALL gds.graph.list() YIELD graphName, database, sizeInBytes, "
                                    + "creationTime RETURN graphName, database, sizeInBytes, "
                                    + "toString(creationTime) AS created")) {
                result.forEachRemaining(row -> out.add(new Graph(
                        (String) row.get("graphName"), (String) row.get("database"),
                        ((Number) row.get("sizeInBytes")).longValue(),
                        String.valueOf(row.get("created")))));
                tx.commit();
                return out;
            } catch (RuntimeException e) {
                // not available there, or no GDS: the next database, or nothing to bound
                sayOnce("cannot list the GDS catalogue on '" + name + "': " + e.getMessage());
            }
        }
        return null;
    }

    /** A transaction on {@code database} as the guard ({@link GuardLogin}: a GDS administrator). */
    private InternalTransaction asGuard(String database) {
        GraphDatabaseAPI db = (GraphDatabaseAPI) dbms.database(database);
        return db.beginTransaction(KernelTransaction.Type.IMPLICIT, new GuardLogin());
    }

    private boolean drop(Graph g, String why) {
        // GDS keeps each user's graphs apart; an administrator drops another user's graph by
        // naming its owner, which gds.graph.list() does not show: each user is tried
        String owner = null;
        try {
            for (String user : users()) {
                try (InternalTransaction tx = asGuard(g.database());
                        Result result = tx.execute(
                                "CALL gds.graph.drop($name, false, $database, $user) "
                                        + "YIELD graphName RETURN graphName",
                                Map.of("name", g.name(), "database", g.database(), "user", user))) {
                    boolean dropped = result.hasNext();
                    result.close();
                    tx.commit();
                    if (dropped) {
                        owner = user;
                        break;
                    }
                }
            }
        } catch (RuntimeException e) {
            sayOnce("could not drop GDS graph '" + g.name() + "': " + e.getMessage());
            return false;
        }
        if (owner == null) {
            sayOnce("could not drop GDS graph '" + g.name() + "': no user owns it");
            return false;
        }
        say(String.format("dropped GDS graph '%s' of user '%s' on database '%s' (%d MiB): %s",
                g.name(), owner, g.database(), g.bytes() >> 20, why));
        return true;
    }

    /** The DBMS's users (Community has no roles, but may have several users). */
    private List<String> users() {
        List<String> out = new ArrayList<>();
        try (InternalTransaction tx = asGuard("system");
                Result result = tx.execute("SHOW USERS YIELD user RETURN user")) {
            result.forEachRemaining(row -> out.add((String) row.get("user")));
            tx.commit();
        }
        return out;
    }

    // -- stopping a thread ----------------------------------------------------------------

    private boolean coolingDown() {
        return lastAction != Long.MIN_VALUE && System.nanoTime() - lastAction < COOLDOWN_NANOS;
    }

    /**
     * Throws a {@link QueryStopped} in {@code t}: {@code Thread.stop0(Object)}, what {@code
     * stop()} calls with a {@code ThreadDeath}. Not {@code stop()} itself: Bolt cannot send a
     * {@code ThreadDeath} (it has no message), and the client waited for an answer that never
     * came while the server went on.
     */
    private void stop(Thread t, String message, String line) {
        Method stop0 = stop0();
        try {
            stop0.invoke(t, new QueryStopped(message));
        } catch (ReflectiveOperationException | RuntimeException e) {
            cannotStop = true;
            say("cannot stop a query on this Java (" + e + "): a query that takes the heap will "
                    + "end the server, and a row past its time limit runs to its end");
            return;
        }
        lastAction = System.nanoTime();
        stoppedAt.put(t.getId(), threads.getThreadAllocatedBytes(t.getId()));
        stoppedWhen.put(t.getId(), lastAction);
        say(line);
    }

    /** {@code Thread.stop0}, opened, or null (not opened to us, or a Java without it). */
    private static Method stop0() {
        try {
            Method stop0 = Thread.class.getDeclaredMethod("stop0", Object.class);
            stop0.setAccessible(true);
            return stop0;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private final Set<String> said = new HashSet<>();

    private void sayOnce(String text) {
        if (said.add(text)) {
            say(text);
        }
    }

    private static void say(String text) {
        System.out.println(LINE + ": " + text);
        System.out.flush();
    }
}
