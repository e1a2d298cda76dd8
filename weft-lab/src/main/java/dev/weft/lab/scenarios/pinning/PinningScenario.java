package dev.weft.lab.scenarios.pinning;

import dev.weft.lab.Mode;
import dev.weft.lab.Scenario;
import dev.weft.lab.ScenarioContext;
import dev.weft.thread.SchedulerSampler;
import dev.weft.thread.SchedulerSamples;
import dev.weft.thread.SchedulerSnapshot;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Article 001's pinning benchmark: 1,000 virtual threads, each doing 10 ms of blocking I/O
 * ({@code Thread.sleep}) and a little computation, with no lock, with a {@code ReentrantLock} held
 * across the I/O, with {@code synchronized} held across it, and with the I/O inside a class
 * initializer (which still pins on JDK 24+).
 *
 * <p>One operation is the article's benchmark method: a virtual-thread-per-task executor, 1,000
 * submitted tasks, every future joined. Throughput is tasks completed per second of wall time.
 *
 * <p>Sizes: full mode runs the article's JMH settings (3 warm-up iterations of 3 s, 5 measured
 * iterations of 5 s; an iteration runs whole operations until its time is up, at least one).
 * Quick mode measures 5 operations after 2 warm-up ones for {@code no-lock}, and a single operation
 * for the others: their time is 99% sleep, so warm-up changes nothing and one operation already
 * takes 5-10 s. Smoke mode runs 20 threads once.
 */
public final class PinningScenario implements Scenario {

    static final long IO_MILLIS = 10;

    private static final Object MONITOR = new Object();
    private static final ReentrantLock LOCK = new ReentrantLock();

    /** The four variants, with what the article published on its 8-core machine. */
    enum Kind {
        NO_LOCK("no-lock", 92_000.0),
        REENTRANT_LOCK("reentrant-lock", 8_500.0),
        SYNCHRONIZED("synchronized", 780.0),
        CLASS_INIT("class-init", null);

        final String variant;
        final Double published;

        Kind(String variant, Double published) {
            this.variant = variant;
            this.published = published;
        }
    }

    /** How many operations to time, JMH style. */
    record Plan(int threads, int warmupIterations, Duration warmupTime, int iterations, Duration iterationTime,
                boolean timeBased) {
    }

    @Override
    public void run(ScenarioContext ctx) throws Exception {
        byte[] classInitBytes = classBytes(IoInClassInit.class);
        int parallelism = carriers();
        double io = IO_MILLIS / 1000.0;
        int threads = ctx.size(20, 1_000, 1_000);
        ctx.limitNote(String.format(Locale.ROOT,
                "Little's law, throughput <= concurrency / %d ms: %,d threads -> %,.0f tasks/s; one lock held across the I/O"
                        + " -> concurrency 1 -> %,.0f tasks/s; pinned carriers (class-init) -> concurrency = %d carriers -> %,.0f tasks/s",
                IO_MILLIS, threads, threads / io, 1 / io, parallelism, parallelism / io));

        List<Double> measured = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            Plan plan = plan(ctx.mode(), kind, threads);
            ctx.progress(kind.variant + ": " + describe(plan));
            SchedulerSampler sampler = SchedulerSampler.start(Duration.ofMillis(20));
            double[] throughputs;
            SchedulerSamples samples;
            try {
                throughputs = iterations(plan, () -> operation(kind, threads, classInitBytes));
            } finally {
                samples = sampler.stop();
            }
            double median = median(throughputs);
            measured.add(median);
            double limit = switch (kind) {
                case NO_LOCK -> threads / io;
                case REENTRANT_LOCK, SYNCHRONIZED -> 1 / io;
                case CLASS_INIT -> parallelism / io;
            };
            ctx.progress(String.format(Locale.ROOT, "%s: median %,.0f tasks/s over %d iteration%s (limit %,.0f)",
                    kind.variant, median, throughputs.length, throughputs.length == 1 ? "" : "s", limit));
            ctx.variant(kind.variant).unit("tasks/s").value(median).limit(limit).published(kind.published)
                    .extra("iterations", Arrays.stream(throughputs).boxed().toList())
                    .extra("threads", threads)
                    .extra("io_ms", IO_MILLIS)
                    .extra("effective_concurrency", median * io)
                    .scheduler(samples)
                    .add();
        }
        notes(ctx, measured, parallelism);
    }

    private static void notes(ScenarioContext ctx, List<Double> measured, int parallelism) {
        double reentrant = measured.get(Kind.REENTRANT_LOCK.ordinal());
        double sync = measured.get(Kind.SYNCHRONIZED.ordinal());
        double classInit = measured.get(Kind.CLASS_INIT.ordinal());
        int jdk = Runtime.version().feature();
        ctx.note("The article's locked figures cannot come from its own code: a lock held across 10 ms of I/O lets one"
                + " task through per 10 ms, at most 100 tasks/s on any machine, yet it published 8,500 tasks/s"
                + " (ReentrantLock) and 780 tasks/s (synchronized).");
        ctx.note(String.format(Locale.ROOT, "Measured here: ReentrantLock %,.0f tasks/s and synchronized %,.0f tasks/s,"
                + " both at the lock's limit of 100 tasks/s.", reentrant, sync));
        if (jdk >= 24) {
            ctx.note("On JDK " + jdk + " synchronized no longer pins (JEP 491): a virtual thread waiting for or holding a"
                    + " monitor unmounts, so synchronized and ReentrantLock behave alike. On JDK 21-23 the same code pins a"
                    + " carrier for every 10 ms sleep.");
        } else {
            ctx.note("On JDK " + jdk + " synchronized pins: the thread holding the monitor keeps its carrier during the"
                    + " sleep, and so do the threads blocked on the monitor. JDK 24+ removes this (JEP 491).");
        }
        ctx.note(String.format(Locale.ROOT, "What still pins on JDK %d: blocking inside a class initializer. class-init ran"
                + " %,.0f tasks/s against a limit of %,.0f (%d carriers, each held for the whole 10 ms).",
                jdk, classInit, parallelism * 1000.0 / IO_MILLIS, parallelism));
    }

    static Plan plan(Mode mode, Kind kind, int threads) {
        return switch (mode) {
            case SMOKE -> new Plan(threads, 0, Duration.ZERO, 1, Duration.ZERO, false);
            case QUICK -> kind == Kind.NO_LOCK
                    ? new Plan(threads, 2, Duration.ZERO, 5, Duration.ZERO, false)
                    : new Plan(threads, 0, Duration.ZERO, 1, Duration.ZERO, false);
            case FULL -> new Plan(threads, 3, Duration.ofSeconds(3), 5, Duration.ofSeconds(5), true);
        };
    }

    private static String describe(Plan p) {
        return p.timeBased
                ? String.format(Locale.ROOT, "%,d threads, %d warm-up x %d s, %d iterations x %d s", p.threads,
                        p.warmupIterations, p.warmupTime.toSeconds(), p.iterations, p.iterationTime.toSeconds())
                : String.format(Locale.ROOT, "%,d threads, %d warm-up + %d measured operation%s", p.threads,
                        p.warmupIterations, p.iterations, p.iterations == 1 ? "" : "s");
    }

    /** Runs the plan's iterations and returns each measured iteration's throughput in tasks/s. */
    static double[] iterations(Plan plan, Operation op) throws Exception {
        for (int i = 0; i < plan.warmupIterations; i++) {
            iteration(plan.timeBased ? plan.warmupTime : Duration.ZERO, op);
        }
        double[] throughputs = new double[plan.iterations];
        for (int i = 0; i < plan.iterations; i++) {
            throughputs[i] = iteration(plan.timeBased ? plan.iterationTime : Duration.ZERO, op);
        }
        return throughputs;
    }

    /** Runs whole operations until {@code time} has passed (at least one); returns tasks per second. */
    private static double iteration(Duration time, Operation op) throws Exception {
        long start = System.nanoTime();
        long deadline = start + time.toNanos();
        long tasks = 0;
        do {
            tasks += op.run();
        } while (System.nanoTime() < deadline);
        return tasks / ((System.nanoTime() - start) / 1e9);
    }

    /** One operation; returns how many tasks it completed. */
    @FunctionalInterface
    interface Operation {
        int run() throws Exception;
    }

    /** The article's benchmark method: {@code threads} tasks on a virtual-thread-per-task executor. */
    static int operation(Kind kind, int threads, byte[] classInitBytes) throws Exception {
        long total = 0;
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Long>> futures = new ArrayList<>(threads);
            for (int i = 0; i < threads; i++) {
                futures.add(executor.submit(() -> task(kind, classInitBytes)));
            }
            for (Future<Long> f : futures) {
                total += f.get();
            }
        }
        blackhole ^= total;
        return threads;
    }

    private static volatile long blackhole;

    private static long task(Kind kind, byte[] classInitBytes) throws Exception {
        switch (kind) {
            case NO_LOCK -> {
                simulateIo();
                return computeResult();
            }
            case REENTRANT_LOCK -> {
                LOCK.lock();
                try {
                    simulateIo();
                    return computeResult();
                } finally {
                    LOCK.unlock();
                }
            }
            case SYNCHRONIZED -> {
                synchronized (MONITOR) {
                    simulateIo();
                    return computeResult();
                }
            }
            case CLASS_INIT -> {
                // A fresh hidden class per task, so that every task runs the blocking initializer.
                Class<?> c = MethodHandles.lookup().defineHiddenClass(classInitBytes, true).lookupClass();
                return c.getDeclaredField("RESULT").getLong(null);
            }
        }
        throw new AssertionError(kind);
    }

    static void simulateIo() {
        try {
            Thread.sleep(IO_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static long computeResult() {
        long hash = 0;
        for (int i = 0; i < 1000; i++) {
            hash ^= ThreadLocalRandom.current().nextLong();
        }
        return hash;
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static int carriers() {
        int parallelism = SchedulerSnapshot.take().parallelism();
        return parallelism > 0 ? parallelism
                : Integer.getInteger("jdk.virtualThreadScheduler.parallelism", Runtime.getRuntime().availableProcessors());
    }

    private static byte[] classBytes(Class<?> c) throws IOException {
        try (InputStream in = c.getResourceAsStream(c.getSimpleName() + ".class")) {
            if (in == null) {
                throw new IOException("cannot read the bytes of " + c.getName());
            }
            return in.readAllBytes();
        }
    }
}
