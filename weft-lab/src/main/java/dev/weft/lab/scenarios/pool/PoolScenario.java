package dev.weft.lab.scenarios.pool;

import dev.weft.lab.Scenario;
import dev.weft.lab.ScenarioContext;
import dev.weft.lab.Stats;
import dev.weft.pin.StarvationDetector;
import dev.weft.pin.StarvationReport;
import dev.weft.thread.SchedulerSampler;
import dev.weft.thread.SchedulerSamples;
import dev.weft.thread.SchedulerSnapshot;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import jdk.jfr.consumer.RecordingStream;

/**
 * Issue 13's pool scenario: N virtual threads, each running {@code select pg_sleep(0.01)} through
 * a pool of 20 connections to a private PostgreSQL server, on six pools: the article's
 * {@code synchronized} + {@code wait} pool, its Semaphore + ConcurrentLinkedQueue pool, a pool
 * whose waiters spin on {@code Thread.yield} (HikariCP #2398's pattern), HikariCP, Agroal and
 * weft's pool ({@code WeftDataSource}).
 *
 * <p>Little's law caps every pool at 20 connections / 10 ms = 2,000 queries/s. Per variant: the
 * median queries/s over interleaved rounds, borrow-wait p50/p99, the client JVM's CPU seconds,
 * pins (JFR, threshold 0), the most carriers the scheduler ran (above the parallelism when it
 * compensated for a held carrier), and starvation: how long a canary virtual thread
 * ({@link StarvationDetector}, threshold 50 ms) waited for a carrier beyond its due time.
 *
 * <p>Cold start: each pool is built with connection creation slowed to 200 ms
 * ({@link SlowDriver}) and 2,000 borrowers arrive at once; the time until 1,000 queries completed
 * and the client CPU spent by then. The article's pools open their 20 connections up front, one
 * after another, as their constructors take a ready list.
 *
 * <p>The detector's overhead: weft-pool's steady state run alternately without and with the
 * detector; the median paired ratio of queries/s.
 */
public final class PoolScenario implements Scenario {

    static final int SIZE = 20;
    static final double SERVICE_S = 0.010;
    // 50 ms, not the detector's default 20: on 2 shared cores the start of 2,000 virtual threads at once and
    // the other builds delay any virtual thread by 20-40 ms now and then (seen for every pool); a
    // spinning pool delays it by 70 ms on average, for seconds.
    static final Duration STARVATION_THRESHOLD = Duration.ofMillis(50);
    static final long SLOW_CREATE_MS = 200;
    static final int COLD_BORROWERS = 2_000;
    static final int COLD_QUERIES = 1_000;

    /** One measured run of one pool. */
    record Run(Instant from, Instant to, long queries, double seconds, double cpuSeconds, long[] waitsNanos,
               SchedulerSamples scheduler, StarvationReport starvation, double cpuAtTarget, double secondsToTarget) {

        double qps() {
            return queries / seconds;
        }

        double waitMs(double p) {
            if (waitsNanos.length == 0) {
                return 0;
            }
            long[] w = waitsNanos.clone();
            Arrays.sort(w);
            int i = (int) Math.min(w.length - 1, Math.max(0, Math.ceil(p * w.length) - 1));
            return w[i] / 1e6;
        }

        double allBusyQueuedMs() {
            if (scheduler == null || !scheduler.samples().getFirst().schedulerAvailable()) {
                return Double.NaN;
            }
            List<SchedulerSnapshot> s = scheduler.samples();
            double ms = 0;
            for (int i = 1; i < s.size(); i++) {
                SchedulerSnapshot a = s.get(i);
                if (a.mountedVirtualThreads() >= a.parallelism() && a.queuedVirtualThreads() > 0) {
                    ms += Duration.between(s.get(i - 1).at(), a.at()).toNanos() / 1e6;
                }
            }
            return ms;
        }
    }

    @Override
    public void run(ScenarioContext ctx) throws Exception {
        Class.forName(SlowDriver.class.getName());
        int threads = ctx.size(100, 2_000, 10_000);
        int perThread = ctx.size(1, 2, 2);
        int rounds = ctx.size(1, 3, 3);
        double limit = SIZE / SERVICE_S;
        int jdk = Runtime.version().feature();
        ctx.limitNote(String.format(Locale.ROOT, "Little's law: %d connections / %.0f ms per query = %,.0f queries/s"
                + " for every pool; the cold start is bounded by connection creation (%d ms each)",
                SIZE, SERVICE_S * 1000, limit, SLOW_CREATE_MS));
        PrivatePostgres pg;
        try {
            pg = PrivatePostgres.start(ctx.workDir());
        } catch (PrivatePostgres.Unavailable e) {
            ctx.note("pool scenario not run: no PostgreSQL server binaries could be had here (" + e.getMessage() + ")");
            return;
        }
        List<Instant> pins = new ArrayList<>();
        try (pg; RecordingStream jfr = pinStream(pins)) {
            ctx.progress("PostgreSQL started: " + pg.url);
            Map<String, List<Run>> steady = steady(ctx, pg.url, SIZE, threads, perThread, rounds, true);
            Map<String, List<Run>> second = Map.of();
            if (ctx.size(0, 0, 1) == 1) {
                second = steady(ctx, pg.url, 50, threads, perThread, 1, true);
            }
            Map<String, Run> cold = coldStart(ctx, pg.url);
            List<double[]> overhead = overhead(ctx, pg.url, threads, perThread, ctx.size(1, 3, 5));
            Thread.sleep(1500);   // JFR delivers pin events up to ~1 s late
            report(ctx, steady, SIZE, limit, pins, jdk, "");
            if (!second.isEmpty()) {
                report(ctx, second, 50, 50 / SERVICE_S, pins, jdk, " @50");
            }
            reportCold(ctx, cold);
            goals(ctx, steady, cold, overhead, pins, limit, jdk);
        }
    }

    private static RecordingStream pinStream(List<Instant> pins) {
        RecordingStream s = new RecordingStream();
        s.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO);
        s.onEvent("jdk.VirtualThreadPinned", e -> {
            synchronized (pins) {
                pins.add(e.getStartTime());
            }
        });
        s.startAsync();
        return s;
    }

    private static long pinsIn(List<Instant> pins, List<Run> runs) {
        synchronized (pins) {
            return pins.stream().filter(t -> runs.stream().anyMatch(r -> !t.isBefore(r.from()) && !t.isAfter(r.to()))).count();
        }
    }

    private Map<String, List<Run>> steady(ScenarioContext ctx, String url, int size, int threads, int perThread,
                                          int rounds, boolean detector) throws Exception {
        Map<String, List<Run>> runs = new LinkedHashMap<>();
        Map<String, Pools.ConnectionPool> pools = new LinkedHashMap<>();
        try {
            for (String name : Pools.NAMES) {
                pools.put(name, Pools.open(name, url, size));
                runs.put(name, new ArrayList<>());
                drive(pools.get(name), size * 4, 1, 0);   // warm: every connection opened and used
            }
            for (int r = 0; r < rounds; r++) {
                for (String name : Pools.NAMES) {
                    Run run = drive(pools.get(name), threads, perThread, detector ? 1 : 0);
                    runs.get(name).add(run);
                    ctx.progress(String.format(Locale.ROOT, "round %d, %s (%d connections): %,.0f queries/s, wait p99 %.0f ms,"
                            + " CPU %.2f s, starved %.0f ms", r + 1, name, size, run.qps(), run.waitMs(0.99), run.cpuSeconds(),
                            run.starvation() == null ? 0.0 : run.starvation().starved().toNanos() / 1e6));
                }
            }
        } finally {
            for (Pools.ConnectionPool p : pools.values()) {
                p.close();
            }
        }
        return runs;
    }

    private Map<String, Run> coldStart(ScenarioContext ctx, String url) throws Exception {
        Map<String, Run> out = new LinkedHashMap<>();
        String slow = SlowDriver.url(SLOW_CREATE_MS, url);
        int borrowers = ctx.size(100, COLD_BORROWERS, COLD_BORROWERS);
        int target = ctx.size(50, COLD_QUERIES, COLD_QUERIES);
        for (String name : Pools.NAMES) {
            double cpu0 = cpuSeconds();
            long t0 = System.nanoTime();
            Pools.ConnectionPool pool = Pools.open(name, slow, SIZE);
            try {
                Run run = drive(pool, borrowers, 1, null, target, cpu0, t0);
                out.put(name, run);
                ctx.progress(String.format(Locale.ROOT, "cold start, %s: %d queries after %.2f s, client CPU %.2f s",
                        name, target, run.secondsToTarget(), run.cpuAtTarget()));
            } finally {
                pool.close();
            }
        }
        return out;
    }

    private List<double[]> overhead(ScenarioContext ctx, String url, int threads, int perThread, int pairs) throws Exception {
        List<double[]> out = new ArrayList<>();
        try (Pools.ConnectionPool pool = Pools.open("weft-pool", url, SIZE)) {
            drive(pool, SIZE * 4, 1, 0);
            for (int i = 0; i < pairs; i++) {
                Run off = drive(pool, threads, perThread, 0);
                Run on = drive(pool, threads, perThread, 1);
                out.add(new double[] {off.qps(), on.qps(), off.cpuSeconds(), on.cpuSeconds()});
                ctx.progress(String.format(Locale.ROOT, "detector overhead, pair %d: %,.0f queries/s off, %,.0f on;"
                        + " CPU %.2f s off, %.2f s on", i + 1, off.qps(), on.qps(), off.cpuSeconds(), on.cpuSeconds()));
            }
        }
        return out;
    }

    /**
     * A steady-state run; with {@code detector == 1} a StarvationDetector watches it, started
     * 300 ms before the run so that its one-time start (a JFR recording) is not counted.
     */
    private Run drive(Pools.ConnectionPool pool, int threads, int perThread, int detector) throws Exception {
        StarvationDetector det = null;
        if (detector == 1) {
            det = StarvationDetector.builder().threshold(STARVATION_THRESHOLD).start();
            Thread.sleep(300);
        }
        return drive(pool, threads, perThread, det, -1, cpuSeconds(), System.nanoTime());
    }

    /**
     * Runs {@code threads} virtual threads of {@code perThread} queries each through the pool; with
     * {@code target > 0}, also notes the time and CPU when that many queries have completed.
     */
    private Run drive(Pools.ConnectionPool pool, int threads, int perThread, StarvationDetector det, int target,
                      double cpu0, long t0) throws Exception {
        int total = threads * perThread;
        long[] waits = new long[total];
        AtomicInteger slot = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        AtomicLong targetAt = new AtomicLong();
        AtomicReference<Double> cpuAtTarget = new AtomicReference<>(Double.NaN);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        SchedulerSampler sampler = SchedulerSampler.start(Duration.ofMillis(5), 20_000);
        Instant from = Instant.now();
        long start = System.nanoTime();
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < threads; i++) {
                ex.submit(() -> {
                    for (int q = 0; q < perThread; q++) {
                        try {
                            long b = System.nanoTime();
                            Connection c = pool.borrow();
                            long w = System.nanoTime() - b;
                            try (Statement s = c.createStatement()) {
                                s.execute("select pg_sleep(0.01)");
                            } finally {
                                pool.giveBack(c);
                            }
                            waits[slot.getAndIncrement()] = w;
                            if (done.incrementAndGet() == target) {
                                targetAt.set(System.nanoTime());
                                cpuAtTarget.set(cpuSeconds() - cpu0);
                            }
                        } catch (Throwable t) {
                            failures.add(t);
                            return;
                        }
                    }
                });
            }
        }
        long end = System.nanoTime();
        Instant to = Instant.now();
        double cpu = cpuSeconds() - cpu0;
        SchedulerSamples samples = sampler.stop();
        StarvationReport starvation = det == null ? null : det.stop();
        if (!failures.isEmpty()) {
            Exception e = new IllegalStateException(failures.size() + " queries failed; the first: " + failures.peek(), failures.peek());
            throw e;
        }
        double toTarget = target > 0 ? (targetAt.get() - t0) / 1e9 : Double.NaN;
        return new Run(from, to, total, (end - start) / 1e9, cpu, Arrays.copyOf(waits, slot.get()), samples, starvation,
                cpuAtTarget.get(), toTarget);
    }

    static double cpuSeconds() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime() / 1e9;
        }
        return Double.NaN;
    }

    private static List<Double> each(List<Run> runs, java.util.function.ToDoubleFunction<Run> f) {
        return runs.stream().map(r -> f.applyAsDouble(r)).toList();
    }

    private static double starvedMs(List<Run> runs) {
        return runs.stream().filter(r -> r.starvation() != null).mapToDouble(r -> r.starvation().starved().toNanos() / 1e6).sum();
    }

    private static long episodes(List<Run> runs) {
        return runs.stream().filter(r -> r.starvation() != null).mapToLong(r -> r.starvation().episodes()).sum();
    }

    private static String topSite(List<Run> runs) {
        for (Run r : runs) {
            if (r.starvation() != null && !r.starvation().sites().isEmpty()) {
                StarvationReport.Site s = r.starvation().sites().getFirst();
                return s.frames().isEmpty() ? null : s.frames().getFirst() + " (" + s.samples() + " samples)";
            }
        }
        return null;
    }

    private void report(ScenarioContext ctx, Map<String, List<Run>> runs, int size, double limit, List<Instant> pins,
                        int jdk, String suffix) {
        runs.forEach((name, rs) -> {
            double qps = Stats.median(each(rs, Run::qps));
            ctx.variant(name + suffix).unit("queries/s").value(qps).limit(limit).better("higher")
                    .rounds(each(rs, Run::qps))
                    .extra("connections", size)
                    .extra("ratio_to_limit", qps / limit)
                    .extra("wait_p50_ms", Stats.median(each(rs, r -> r.waitMs(0.50))))
                    .extra("wait_p99_ms", Stats.median(each(rs, r -> r.waitMs(0.99))))
                    .extra("cpu_s", Stats.median(each(rs, Run::cpuSeconds)))
                    .extra("pins", pinsIn(pins, rs))
                    .extra("max_carriers", rs.stream().mapToInt(r -> r.scheduler().maxPoolSize()).max().orElse(0))
                    .extra("all_carriers_busy_with_queue_ms", Stats.median(each(rs, Run::allBusyQueuedMs)))
                    .extra("starved_ms", starvedMs(rs))
                    .extra("starvation_episodes", episodes(rs))
                    .extra("starvation_top_site", topSite(rs))
                    .extra("jdk_major", jdk)
                    .scheduler(rs.getLast().scheduler())
                    .add();
        });
    }

    private void reportCold(ScenarioContext ctx, Map<String, Run> cold) {
        cold.forEach((name, r) -> ctx.variant("cold-start " + name).unit("s").value(r.secondsToTarget()).better("lower")
                .extra("queries", COLD_QUERIES).extra("borrowers", COLD_BORROWERS)
                .extra("create_delay_ms", SLOW_CREATE_MS)
                .extra("cpu_s_to_target", r.cpuAtTarget())
                .extra("cpu_s_total", r.cpuSeconds())
                .extra("seconds_total", r.seconds())
                .add());
    }

    private void goals(ScenarioContext ctx, Map<String, List<Run>> steady, Map<String, Run> cold, List<double[]> overhead,
                       List<Instant> pins, double limit, int jdk) {
        List<Run> weft = steady.get("weft-pool");
        List<Run> hikari = steady.get("hikaricp");
        ctx.goal("weft-pool reaches 0.95 of the limit").perRound(each(weft, r -> r.qps() / limit)).atLeast(0.95).add();
        ctx.goal("weft-pool's queries/s >= 1.0x HikariCP's").pairedRatios(each(weft, Run::qps), each(hikari, Run::qps))
                .atLeast(1.0).add();
        ctx.goal("weft-pool's p99 borrow wait no worse than HikariCP's (ratio)")
                .pairedRatios(each(weft, r -> r.waitMs(0.99)), each(hikari, r -> r.waitMs(0.99))).atMost(1.0).add();
        ctx.goal("weft-pool pins no carrier (JDK " + jdk + ")").unit("pins").measured(pinsIn(pins, weft)).atMost(0).add();
        double leastOther = cold.entrySet().stream().filter(e -> !e.getKey().equals("weft-pool"))
                .mapToDouble(e -> e.getValue().cpuAtTarget()).min().orElse(Double.NaN);
        ctx.goal("weft-pool burns the least client CPU in the cold start (ratio to the next least)")
                .measured(cold.get("weft-pool").cpuAtTarget() / leastOther).atMost(1.0).add();
        ctx.goal("the starvation detector fires for yield-spin-pool").unit("episodes")
                .measured(episodes(steady.get("yield-spin-pool"))).atLeast(1).add();
        ctx.goal("the starvation detector stays silent for weft-pool").unit("episodes").measured(episodes(weft)).atMost(0).add();
        ctx.goal("the starvation detector costs weft-pool at most 2% of its queries/s (off / on)")
                .pairedRatios(overhead.stream().map(o -> o[0]).toList(), overhead.stream().map(o -> o[1]).toList())
                .atMost(1.02).add();
        ctx.note(String.format(Locale.ROOT, "starvation detector overhead on weft-pool: client CPU on/off %.3f (median of %d pairs)",
                Stats.median(overhead.stream().map(o -> o[3] / o[2]).toList()), overhead.size()));
    }
}
