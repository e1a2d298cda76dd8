package dev.weft.lab.scenarios.pinning;

import dev.weft.lab.ChildJvm;
import dev.weft.lab.Goal;
import dev.weft.lab.Mode;
import dev.weft.lab.Rounds;
import dev.weft.lab.Scenario;
import dev.weft.lab.ScenarioContext;
import dev.weft.lab.Stats;
import dev.weft.pin.PinCapture;
import dev.weft.pin.PinEvent;
import dev.weft.pin.PinMonitor;
import dev.weft.pin.PinReport;
import dev.weft.scheduler.SchedulerSampler;
import dev.weft.scheduler.SchedulerSamples;
import dev.weft.scheduler.SchedulerSnapshot;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
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
 * <p>weft's {@link PinMonitor} (threshold 0) runs during every measured operation and counts each
 * variant's pins: 0 for {@code synchronized} on JDK 24+, one per task for the class initializer.
 * Its overhead is measured in the same run on {@code no-lock}, which never pins: pairs of a
 * stretch of operations with the monitor (the second it takes to stop) between two blocks without
 * it, so that drift cancels out; the goal is judged on the pairs' ratios (throughput, tasks over
 * time, with over without), at least 6 pairs and more while the goal is inconclusive and the
 * budget allows (decisions 0809, 0810, 0830). The scenario also times the test assertion (a {@link PinCapture} around an empty body).
 *
 * <p>Sizes: full mode runs the article's JMH settings for every variant (3 warm-up iterations of
 * 3 s, 5 measured iterations of 5 s; an iteration runs whole operations until its time is up, at
 * least one) after overhead blocks of 10 operations. Quick mode measures {@code no-lock} with 1 s
 * of warm-up and the second it takes to stop the monitor (JFR's first recording warms up too) and
 * blocks of 16 (its figure is the monitored stretches'), and a single operation of {@value #QUICK_BOUND_THREADS} threads for the
 * others, and for carrier tuning: their time is 99% sleep, so warm-up changes nothing, and their
 * throughput is bound by the lock or the carriers, not by the number of threads; 1,000 threads
 * would take 5-10 s each (quick mode's budget is 31 s per JDK). Smoke mode runs 20 threads, one
 * operation per block.
 */
public final class PinningScenario implements Scenario {

    static final long IO_MILLIS = 10;

    /** Pause between two measured periods, so that each pin's timestamp falls in exactly one. */
    private static final Duration GAP = Duration.ofMillis(100);

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

    /**
     * Threads per operation in quick mode for the variants bound by a lock or by the carriers
     * (reentrant-lock, synchronized, class-init and carrier tuning): their limit does not depend on
     * the number of threads, and 100 tasks take 1 s at a lock's 100 tasks/s where 1,000 take 10 s
     * (200 until decision 0810 gave the second to the overhead pairs).
     */
    static final int QUICK_BOUND_THREADS = 100;

    /** How many operations to time, JMH style. */
    record Plan(
            int threads,
            int warmupIterations,
            Duration warmupTime,
            int iterations,
            Duration iterationTime,
            boolean timeBased) {}

    /**
     * One variant's measurement: the throughput of each measured iteration, the scheduler meanwhile,
     * and the periods (with the tasks run in them) whose pins count for it.
     */
    record Measured(
            double[] throughputs,
            SchedulerSamples scheduler,
            List<Instant[]> periods,
            long tasks,
            Bystander.Latencies bystander) {}

    /** The bystander: a 1 ms sleep on a new virtual thread every 2 ms, during every variant. */
    static final Duration BYSTANDER_EVERY = Duration.ofMillis(2);

    static final Duration BYSTANDER_SLEEP = Duration.ofMillis(1);

    @Override
    public void run(ScenarioContext ctx) throws Exception {
        byte[] classInitBytes = classBytes(IoInClassInit.class);
        int parallelism = carriers();
        double io = IO_MILLIS / 1000.0;
        int threads = ctx.size(20, 1_000, 1_000);
        ctx.limitNote(String.format(
                Locale.ROOT,
                "Little's law, throughput <= concurrency / %d ms: %,d threads -> %,.0f tasks/s; one lock held across the I/O"
                        + " -> concurrency 1 -> %,.0f tasks/s; pinned carriers (class-init) -> concurrency = %d carriers -> %,.0f tasks/s",
                IO_MILLIS,
                threads,
                threads / io,
                1 / io,
                parallelism,
                parallelism / io));

        if (ctx.mode() == Mode.QUICK) {
            ctx.note(String.format(
                    Locale.ROOT,
                    "Quick sizes: no-lock runs %,d threads per operation; reentrant-lock,"
                            + " synchronized, class-init and the carrier-tuning runs %,d, since a lock or the carriers bound their"
                            + " throughput whatever the number of threads (1,000 would take 10 s per locked variant). --full runs"
                            + " 1,000 for every variant with the article's JMH settings.",
                    threads,
                    QUICK_BOUND_THREADS));
        }
        PinLog pins = new PinLog();
        Overhead overhead = overhead(ctx, threads, classInitBytes, pins);
        Map<Kind, Measured> measured = new EnumMap<>(Kind.class);
        PinReport monitored = null;
        try {
            for (Kind kind : Kind.values()) {
                Plan plan = plan(ctx.mode(), kind, threads);
                Measured m = kind == Kind.NO_LOCK && !plan.timeBased
                        ? overhead.monitored()
                        : measure(ctx, kind, plan, () -> operation(kind, plan.threads(), classInitBytes));
                measured.put(kind, m);
                ctx.progress(String.format(
                        Locale.ROOT,
                        "%s: median %,.0f tasks/s over %d iteration%s (limit %,.0f)",
                        kind.variant,
                        Stats.median(m.throughputs()),
                        m.throughputs().length,
                        m.throughputs().length == 1 ? "" : "s",
                        limit(kind, threads, parallelism)));
            }
        } catch (Exception | Error e) {
            overhead.monitor().stop();
            throw e;
        }
        // The stop waits for JFR's next flush, up to a second: the carrier-tuning JVMs run
        // meanwhile (decision 0856); once it returns, every pin has reached the log. Not the
        // assertions: their JFR recordings waited for the stopping stream, 7 ms became 30.
        FutureTask<PinReport> stopping = new FutureTask<>(overhead.monitor()::stop);
        Thread.ofPlatform().daemon().name("weft-lab-variants-monitor-stop").start(stopping);
        List<Tuned> tuned;
        int tunedThreads = plan(ctx.mode(), Kind.CLASS_INIT, threads).threads();
        try {
            tuned = carrierTuning(ctx, tunedThreads);
        } finally {
            monitored = stopped(stopping);
        }
        List<Double> latencies = assertionLatencies(ctx);
        java.util.Optional<Path> agentJar = AgentOverhead.agentJar();
        if (agentJar.isPresent()) {
            ctx.progress("weft agent overhead on no-lock: child JVMs without and with -javaagent, alternating");
        }
        AgentOverhead.Result agent = agentJar.isPresent() ? AgentOverhead.measure(ctx, threads, agentJar.get()) : null;

        for (Kind kind : Kind.values()) {
            Measured m = measured.get(kind);
            double median = Stats.median(m.throughputs());
            long pinned =
                    m.periods().stream().mapToLong(p -> pins.count(p[0], p[1])).sum();
            ScenarioContext.VariantBuilder v = ctx.variant(kind.variant)
                    .unit("tasks/s")
                    .value(median)
                    .limit(limit(kind, threads, parallelism))
                    .published(kind.published)
                    .extra("iterations", Arrays.stream(m.throughputs()).boxed().toList())
                    .extra("threads", plan(ctx.mode(), kind, threads).threads())
                    .extra("io_ms", IO_MILLIS)
                    .extra("effective_concurrency", median * io)
                    .extra("pins", pinned)
                    .extra("pins_per_task", pinned / (double) m.tasks())
                    .extra("bystander_p50_ms", m.bystander().quantile(0.50))
                    .extra("bystander_p99_ms", m.bystander().quantile(0.99))
                    .extra("bystander_max_ms", m.bystander().quantile(1.0))
                    .extra("bystander_tasks", m.bystander().ms().length)
                    .scheduler(m.scheduler());
            if (kind == Kind.NO_LOCK) {
                v.extra("throughput_without_monitor", Stats.median(overhead.off()))
                        .extra("throughput_with_monitor", Stats.median(overhead.on()))
                        .extra("monitor_overhead_ratio", overhead.ratio())
                        .extra(
                                "iterations_without_monitor",
                                Arrays.stream(overhead.off()).boxed().toList())
                        .extra(
                                "iterations_with_monitor",
                                Arrays.stream(overhead.on()).boxed().toList())
                        .extra("monitor_overhead_pair_ratios", overhead.pairRatios())
                        .extra("assertion_latency_ms_median", Stats.median(toArray(latencies)))
                        .extra("assertion_latency_ms", latencies);
                if (agent != null) {
                    v.extra("throughput_without_agent", Stats.median(agent.off()))
                            .extra("throughput_with_agent", Stats.median(agent.on()))
                            .extra("agent_overhead_ratio", agent.ratio())
                            .extra(
                                    "iterations_without_agent",
                                    Arrays.stream(agent.off()).boxed().toList())
                            .extra(
                                    "iterations_with_agent",
                                    Arrays.stream(agent.on()).boxed().toList())
                            .extra("agent_overhead_pair_ratios", agent.pairRatios())
                            .extra("agent_overhead_seconds", agent.seconds());
                }
            }
            v.add();
        }
        for (Tuned t : tuned) {
            ctx.variant("class-init@" + t.carriers() + "-carriers")
                    .unit("tasks/s")
                    .value(t.throughput())
                    .limit(t.carriers() * 1000.0 / IO_MILLIS)
                    .extra("threads", tunedThreads)
                    .extra("io_ms", IO_MILLIS)
                    .extra("carriers", t.carriers())
                    .extra("jvm_args", List.of("-Djdk.virtualThreadScheduler.parallelism=" + t.carriers()))
                    .extra("effective_concurrency", t.throughput() * IO_MILLIS / 1000.0)
                    .extra("pins", t.pins())
                    .extra("pins_per_task", t.pins() / (double) tunedThreads)
                    .extra("submit_failures", t.submitFailures())
                    .extra("bystander_p50_ms", t.bystanderP50())
                    .extra("bystander_p99_ms", t.bystanderP99())
                    .add();
        }
        notes(ctx, measured, parallelism, pins, overhead, latencies, tuned, monitored);
        if (agent == null) {
            ctx.note(
                    "The weft agent's overhead was not measured: weft-agent is not a jar on this classpath (./weft install,"
                            + " or a build through the package phase, makes it).");
        } else {
            ctx.note(String.format(
                    Locale.ROOT,
                    "The weft agent (-javaagent, pins and starvation, its defaults) on a workload"
                            + " that never pins: no-lock ran %,.0f tasks/s with it, %,.0f without (ratio of the medians %.3f, %d+%d"
                            + " operations in %d pairs of blocks in child JVMs, the order alternating, two new JVMs every %d pairs,"
                            + " %.1f s in all; the goal is judged on the pairs' ratios).",
                    Stats.median(agent.on()),
                    Stats.median(agent.off()),
                    agent.ratio(),
                    agent.on().length,
                    agent.off().length,
                    agent.pairRatios().size(),
                    AgentOverhead.PAIRS_PER_JVMS,
                    agent.seconds()));
            ctx.goal("the weft agent costs at most 2% on a workload that never pins (with/without)")
                    .perRound(agent.pairRatios())
                    .unit("x")
                    .atLeast(AgentOverhead.TARGET)
                    .add();
        }
    }

    /** The report of a monitor stopped by {@code stopping}, once it has; what the stop threw, as itself. */
    private static PinReport stopped(FutureTask<PinReport> stopping) throws InterruptedException {
        try {
            return stopping.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException("stopping the pin monitor failed: " + e.getCause(), e.getCause());
        }
    }

    private static double limit(Kind kind, int threads, int parallelism) {
        double io = IO_MILLIS / 1000.0;
        return switch (kind) {
            case NO_LOCK -> threads / io;
            case REENTRANT_LOCK, SYNCHRONIZED -> 1 / io;
            case CLASS_INIT -> parallelism / io;
        };
    }

    /** Runs a variant's plan with the scheduler sampled; its pins are those of the whole period. */
    private static Measured measure(ScenarioContext ctx, Kind kind, Plan plan, Operation op) throws Exception {
        ctx.progress(kind.variant + ": " + describe(plan) + ", pin monitor on");
        LongAdder tasks = new LongAdder();
        Operation counted = () -> {
            int n = op.run();
            tasks.add(n);
            return n;
        };
        SchedulerSampler sampler = SchedulerSampler.start(Duration.ofMillis(20));
        Bystander bystander = Bystander.start(BYSTANDER_EVERY, BYSTANDER_SLEEP);
        Instant from = Instant.now();
        double[] throughputs;
        SchedulerSamples samples;
        try {
            throughputs = iterations(plan, counted);
        } finally {
            samples = sampler.stop();
            bystander.close();
        }
        Instant to = Instant.now();
        Thread.sleep(GAP);
        return new Measured(
                throughputs, samples, List.<Instant[]>of(new Instant[] {from, to}), tasks.sum(), bystander.stop());
    }

    // ---- the monitor: its overhead, the pins it saw, the assertion's latency ----------------

    /**
     * The no-lock workload, which never pins, without and with the pin monitor (decision 0830).
     * Each pair is a stretch with the monitor between two blocks without it: a block without,
     * the monitor started, one unmeasured operation, then the monitor stopped on another thread
     * while operations run with it until the stop returns (stopping waits for JFR's next flush,
     * 0.7-1 s here: the stretch with the monitor is that time, one flush in it as when the
     * monitor runs for good), one unmeasured operation, a block without. The blocks without lie
     * on both sides of the stretch with, so that a drift of the machine over the pair cancels
     * out; the pair's ratio is the stretch's throughput over the two blocks'. A new monitor
     * watches the variants after the pairs.
     */
    private static Overhead overhead(ScenarioContext ctx, int threads, byte[] classInitBytes, PinLog pins)
            throws Exception {
        int block = ctx.size(1, 16, 10);
        // Pairs, each one paired ratio: at least 6 for the sign test's 95% (decision 0804).
        int minPairs = ctx.size(1, 6, 6);
        int maxPairs = ctx.size(1, 12, 12);
        // The first operations of a JVM run several times slower (JIT, carrier start), and so does
        // JFR's first recording (the recorder and its parser load and compile): warm up both, by
        // time, then for as long as stopping that recording takes.
        Duration warmup = Duration.ofMillis(ctx.size(0, 1_000, 9_000));
        Operation op = () -> operation(Kind.NO_LOCK, threads, classInitBytes);
        ctx.progress(String.format(
                Locale.ROOT,
                "monitor overhead on no-lock: %,d threads, %.1f s warm-up with the monitor, then %d-%d pairs:"
                        + " %d operations without it, about a second of operations with it (while it stops), %d without",
                threads,
                warmup.toMillis() / 1e3,
                minPairs,
                maxPairs,
                block,
                block));
        List<Double> off = new ArrayList<>();
        List<Double> on = new ArrayList<>();
        List<Double> pairRatios = new ArrayList<>();
        List<Instant[]> monitored = new ArrayList<>();
        SchedulerSamples samples;
        SchedulerSampler sampler = null;
        Bystander bystander = null;
        PinMonitor monitor = null;
        try {
            iteration(warmup, op);
            sampler = SchedulerSampler.start(Duration.ofMillis(20));
            // during the blocks with and without the monitor alike, so the overhead ratio stays fair
            bystander = Bystander.start(BYSTANDER_EVERY, BYSTANDER_SLEEP);
            // The warm-up's end runs with the sampler and the bystander: their first rounds (threads,
            // classes, compilations) made the first operations after them 20-45% slower on JDK 25.
            whileStopping(pins.startMonitor(), op);
            iteration(Duration.ZERO, op);
            // Keeps time for the rest of the scenario (decision 0856): the variants, the
            // assertions and carrier tuning, and the agent's fewest pairs at their estimates.
            Rounds pairs = ctx.rounds(minPairs, maxPairs)
                    .reserve(
                            ctx.mode() == Mode.FULL
                                    ? Duration.ofSeconds(120)
                                    : AFTER_MONITOR_QUICK.plus(
                                            AgentOverhead.Plan.of(ctx).minimumTime()))
                    .watch(Goal.AT_LEAST, 0.98, () -> List.copyOf(pairRatios));
            while (pairs.another()) {
                List<Double> without = block(block, op);
                monitor = pins.startMonitor();
                // One unmeasured operation after a start or a stop: a JFR recording's start or end
                // leaves work behind (its threads, a chunk to close) that would fall on the next one.
                iteration(Duration.ZERO, op);
                Instant from = Instant.now();
                List<Double> with = whileStopping(monitor, op);
                monitor = null;
                monitored.add(new Instant[] {from, Instant.now()});
                iteration(Duration.ZERO, op);
                without.addAll(block(block, op));
                if (with.isEmpty()) {
                    ctx.progress(
                            "monitor pair " + pairs.count() + " void: its first operation with the monitor outlasted"
                                    + " the monitor's stop (about a second); the machine is overloaded");
                    continue;
                }
                off.addAll(without);
                on.addAll(with);
                pairRatios.add(throughput(with) / throughput(without));
            }
            if (on.isEmpty()) {
                throw new IllegalStateException("every pair of the pin monitor's overhead was void: an operation of "
                        + threads + " threads outlasted the monitor's stop (about a second) each time; the machine is"
                        + " overloaded, run the lab when it is not");
            }
            monitor = pins.startMonitor(); // the monitor that watches the variants from here on
        } catch (Exception | Error e) {
            if (monitor != null) {
                monitor.stop();
            }
            throw e;
        } finally {
            samples = sampler == null ? null : sampler.stop();
            if (bystander != null) {
                bystander.close();
            }
        }
        return new Overhead(
                toArray(off),
                toArray(on),
                List.copyOf(pairRatios),
                monitored,
                (long) on.size() * threads,
                samples,
                monitor,
                bystander.stop());
    }

    /**
     * What quick mode runs after the monitor's pairs besides the agent's: the three bound variants
     * (~1.1 s each), the two carrier-tuning JVMs (1.5-1.8 s each; the monitor's stop, ~0.9 s, now
     * runs meanwhile, decision 0856) and the assertions (~0.3 s) in the idle runs of 2026-11-27.
     */
    static final Duration AFTER_MONITOR_QUICK = Duration.ofMillis(7_000);

    /**
     * Stops {@code monitor} on another thread and meanwhile runs operations, with the monitor
     * still recording; returns the throughput of each one that ended before the stop returned
     * (the one under way then is left out: the monitor ended during it), none when the first one
     * outlasted the stop (about a second: only on a machine overloaded many times over).
     */
    static List<Double> whileStopping(PinMonitor monitor, Operation op) throws Exception {
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread stopper = Thread.ofPlatform()
                .name("weft-lab-monitor-stop")
                .daemon()
                .start(() -> {
                    try {
                        monitor.stop();
                    } catch (RuntimeException | Error e) {
                        failed.set(e);
                    }
                });
        List<Double> figures = new ArrayList<>();
        try {
            while (true) {
                double figure = iteration(Duration.ZERO, op);
                if (!stopper.isAlive()) {
                    break;
                }
                figures.add(figure);
            }
        } finally {
            stopper.join();
        }
        if (failed.get() != null) {
            throw new IllegalStateException("stopping the pin monitor failed: " + failed.get(), failed.get());
        }
        return figures;
    }

    /** Runs {@code n} operations back to back; returns each one's throughput in tasks/s. */
    static List<Double> block(int n, Operation op) throws Exception {
        List<Double> figures = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            figures.add(iteration(Duration.ZERO, op));
        }
        return figures;
    }

    /**
     * A block's throughput, JMH's: its operations' tasks over their summed time (each operation
     * runs the same tasks, so this is the harmonic mean of their throughputs). A slow operation
     * counts in full, as a cost of the monitor or the agent would; the median would hide it.
     */
    static double throughput(List<Double> perOperation) {
        if (perOperation.isEmpty()) {
            throw new IllegalArgumentException("the throughput of no operations is undefined; run at least one");
        }
        double seconds = 0; // per task, summed over the operations
        for (double tasksPerSecond : perOperation) {
            seconds += 1 / tasksPerSecond;
        }
        return perOperation.size() / seconds;
    }

    /**
     * The no-lock blocks: throughputs without and with the monitor, the monitored periods, and the
     * monitor left running.
     */
    record Overhead(
            double[] off,
            double[] on,
            List<Double> pairRatios,
            List<Instant[]> onPeriods,
            long onTasks,
            SchedulerSamples scheduler,
            PinMonitor monitor,
            Bystander.Latencies bystander) {

        /** Median throughput with the monitor divided by median throughput without it. */
        double ratio() {
            return Stats.median(on) / Stats.median(off);
        }

        /** The monitored blocks as no-lock's measurement (quick and smoke modes). */
        Measured monitored() {
            return new Measured(on, scheduler, onPeriods, onTasks, bystander);
        }
    }

    /** Starts pin monitors and keeps when each pin they saw began. */
    static final class PinLog {
        private final ConcurrentLinkedQueue<Instant> starts = new ConcurrentLinkedQueue<>();

        PinMonitor startMonitor() {
            return PinMonitor.builder()
                    .threshold(Duration.ZERO)
                    .sampleScheduler(Duration.ZERO, 0)
                    .onPin(this::seen)
                    .start();
        }

        private void seen(PinEvent pin) {
            starts.add(pin.start());
        }

        /** Pins that began between {@code from} and {@code to}. */
        long count(Instant from, Instant to) {
            return starts.stream()
                    .filter(t -> !t.isBefore(from) && !t.isAfter(to))
                    .count();
        }
    }

    /**
     * Times {@code n} pin assertions the way {@code weft.pin/no-pins?} and {@code @NoPins} make
     * them: a {@link PinCapture} around an empty body run on a new virtual thread, start to end, in
     * milliseconds.
     */
    private static List<Double> assertionLatencies(ScenarioContext ctx) throws InterruptedException {
        int n = ctx.size(5, 30, 100);
        ctx.progress("timing " + n + " pin assertions (a PinCapture around an empty body on a virtual thread)");
        List<Double> ms = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            PinCapture capture = PinCapture.start();
            Thread.ofVirtual().start(() -> {}).join();
            PinReport r = capture.end();
            ms.add(Math.round((System.nanoTime() - t0) / 1e3) / 1e3);
            if (r.pins() != 0) {
                throw new IllegalStateException("an empty body pinned:\n" + r.toText());
            }
        }
        return ms;
    }

    private static void notes(
            ScenarioContext ctx,
            Map<Kind, Measured> measured,
            int parallelism,
            PinLog pins,
            Overhead overhead,
            List<Double> latencies,
            List<Tuned> tuned,
            PinReport monitored) {
        double reentrant = Stats.median(measured.get(Kind.REENTRANT_LOCK).throughputs());
        double sync = Stats.median(measured.get(Kind.SYNCHRONIZED).throughputs());
        double classInit = Stats.median(measured.get(Kind.CLASS_INIT).throughputs());
        int jdk = Runtime.version().feature();
        ctx.note("The article's locked figures cannot come from its own code: a lock held across 10 ms of I/O lets one"
                + " task through per 10 ms, at most 100 tasks/s on any machine, yet it published 8,500 tasks/s"
                + " (ReentrantLock) and 780 tasks/s (synchronized).");
        ctx.note(String.format(
                Locale.ROOT,
                "Measured here: ReentrantLock %,.0f tasks/s and synchronized %,.0f tasks/s,"
                        + " both at the lock's limit of 100 tasks/s.",
                reentrant,
                sync));
        if (jdk >= 24) {
            ctx.note("On JDK " + jdk
                    + " synchronized no longer pins (JEP 491): a virtual thread waiting for or holding a"
                    + " monitor unmounts, so synchronized and ReentrantLock behave alike. On JDK 21-23 the same code pins a"
                    + " carrier for every 10 ms sleep.");
        } else {
            ctx.note("On JDK " + jdk + " synchronized pins: the thread holding the monitor keeps its carrier during the"
                    + " sleep, and so do the threads blocked on the monitor. JDK 24+ removes this (JEP 491).");
        }
        ctx.note(String.format(
                Locale.ROOT,
                "What still pins on JDK %d: blocking inside a class initializer. class-init ran"
                        + " %,.0f tasks/s against a limit of %,.0f (%d carriers, each held for the whole 10 ms).",
                jdk,
                classInit,
                parallelism * 1000.0 / IO_MILLIS,
                parallelism));
        StringBuilder perVariant = new StringBuilder();
        for (Kind kind : Kind.values()) {
            Measured m = measured.get(kind);
            long n = m.periods().stream().mapToLong(p -> pins.count(p[0], p[1])).sum();
            perVariant
                    .append(perVariant.isEmpty() ? "" : ", ")
                    .append(kind.variant)
                    .append(' ')
                    .append(String.format(Locale.ROOT, "%,d (%.2f per task)", n, n / (double) m.tasks()));
        }
        ctx.note("Pins seen by weft's pin monitor (JFR, threshold 0): " + perVariant + ".");
        bystanderNotes(ctx, measured, jdk);
        for (Tuned t : tuned) {
            ctx.note(String.format(
                    Locale.ROOT,
                    "More carriers for code that must pin: class-init in a JVM with %d carriers"
                            + " (-Djdk.virtualThreadScheduler.parallelism=%d) ran %,.0f tasks/s (limit %,.0f), %d pins,"
                            + " bystander p99 %.1f ms, %d jdk.VirtualThreadSubmitFailed events.",
                    t.carriers(),
                    t.carriers(),
                    t.throughput(),
                    t.carriers() * 1000.0 / IO_MILLIS,
                    t.pins(),
                    t.bystanderP99(),
                    t.submitFailures()));
        }
        ctx.note(
                monitored == null || monitored.submitFailures() == 0
                        ? "jdk.VirtualThreadSubmitFailed: none during the variants."
                        : "jdk.VirtualThreadSubmitFailed during the variants: " + monitored.submitFailures() + " ("
                                + String.join("; ", monitored.submitFailureMessages()) + ").");
        ctx.note(String.format(
                Locale.ROOT,
                "The pin monitor on a workload that never pins: no-lock ran %,.0f tasks/s with it,"
                        + " %,.0f without (ratio of the medians %.3f, %d+%d operations in %d pairs, each a second of operations with it"
                        + " while it stops between two blocks without it; the goal is judged on the pairs' ratios).",
                Stats.median(overhead.on()),
                Stats.median(overhead.off()),
                overhead.ratio(),
                overhead.on().length,
                overhead.off().length,
                overhead.pairRatios().size()));
        ctx.goal("the pin monitor costs at most 2% on a workload that never pins (with/without)")
                .perRound(overhead.pairRatios())
                .unit("x")
                .atLeast(0.98)
                .add();
        double[] l = toArray(latencies);
        Arrays.sort(l);
        ctx.note(String.format(
                Locale.ROOT,
                "A pin assertion (a JFR recording that must contain its own end marker,"
                        + " as in @NoPins and weft.pin/no-pins?): %.1f ms median, %.1f ms at most, over %d checks.",
                Stats.median(l),
                l[l.length - 1],
                l.length));
        ctx.goal("a pin assertion takes under 200 ms (median)")
                .perRound(latencies)
                .unit("ms")
                .atMost(200)
                .add();
    }

    // ---- carrier tuning: class-init with more carriers, each setting in a JVM of its own ----

    /** class-init's figures in a JVM started with {@code carriers} carriers. */
    record Tuned(
            int carriers,
            double throughput,
            long pins,
            long submitFailures,
            double bystanderP50,
            double bystanderP99) {}

    /** The carrier counts the class-init variant is re-run with, each in its own JVM. */
    static final int[] TUNED_CARRIERS = {2, 8};

    /**
     * Re-runs class-init in a JVM per carrier count ({@code -Djdk.virtualThreadScheduler.parallelism},
     * read once by the JDK when it creates the scheduler): article 001's advice, more carriers for
     * code that must pin, at work.
     */
    private static List<Tuned> carrierTuning(ScenarioContext ctx, int threads) throws Exception {
        List<Tuned> tuned = new ArrayList<>();
        for (int carriers : TUNED_CARRIERS) {
            ctx.progress("class-init with " + carriers
                    + " carriers, in a JVM of its own (-Djdk.virtualThreadScheduler.parallelism=" + carriers + ")");
            // Started through the context, like every helper JVM, so the lab ends it if the scenario dies.
            ChildJvm child = ctx.startJvm(
                    "carrier-tuning-" + carriers,
                    List.of("-Djdk.virtualThreadScheduler.parallelism=" + carriers, "-XX:+EnableDynamicAgentLoading"),
                    CarrierTuning.class.getName(),
                    List.of(Integer.toString(threads)));
            String line;
            try {
                child.awaitExit(Duration.ofSeconds(120)); // blocks while the child measures
                line = child.await(CarrierTuning.RESULT, Duration.ZERO);
            } finally {
                child.stop();
            }
            Map<String, String> f = new java.util.HashMap<>();
            for (String kv : line.split(" ")) {
                f.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            }
            tuned.add(new Tuned(
                    Integer.parseInt(f.get("carriers")),
                    Double.parseDouble(f.get("tasks_per_s")),
                    Long.parseLong(f.get("pins")),
                    Long.parseLong(f.get("submit_failures")),
                    Double.parseDouble(f.get("bystander_p50_ms")),
                    Double.parseDouble(f.get("bystander_p99_ms"))));
        }
        return tuned;
    }

    /** One line per variant on what the bystander saw, and on JDK 24+ the goal that synchronized leaves it alone. */
    private static void bystanderNotes(ScenarioContext ctx, Map<Kind, Measured> measured, int jdk) {
        for (Kind kind : Kind.values()) {
            Bystander.Latencies b = measured.get(kind).bystander();
            String meaning = switch (kind) {
                case NO_LOCK -> "nothing pins, the bystander's 1 ms sleeps take about 1 ms";
                case REENTRANT_LOCK -> "waiting for a ReentrantLock unmounts, carriers stay free";
                case SYNCHRONIZED ->
                    jdk >= 24
                            ? "JEP 491: monitor holders and waiters unmount, carriers stay free"
                            : "the monitor's holder and its waiters pin every carrier, the bystanders wait for the whole variant";
                case CLASS_INIT -> "each task pins a carrier for 10 ms in a class initializer; bystanders get the gaps";
            };
            ctx.note(String.format(
                    Locale.ROOT,
                    "Bystander during %s (a 1 ms sleep on a new virtual thread every 2 ms,"
                            + " %,d tasks): p50 %.1f ms, p99 %.1f ms, max %.1f ms: %s.",
                    kind.variant,
                    b.ms().length,
                    b.quantile(0.5),
                    b.quantile(0.99),
                    b.quantile(1.0),
                    meaning));
        }
        if (jdk >= 24) {
            double p99 = measured.get(Kind.SYNCHRONIZED).bystander().quantile(0.99);
            if (Double.isFinite(p99)) {
                ctx.goal("on JDK 24+ synchronized leaves other virtual threads running: bystander p99 under 50 ms")
                        .measured(p99)
                        .unit("ms")
                        .atMost(50)
                        .add();
            }
        }
    }

    static Plan plan(Mode mode, Kind kind, int threads) {
        return switch (mode) {
            case SMOKE -> new Plan(threads, 0, Duration.ZERO, 1, Duration.ZERO, false);
            case QUICK ->
                kind == Kind.NO_LOCK
                        ? new Plan(threads, 2, Duration.ZERO, 5, Duration.ZERO, false)
                        : new Plan(Math.min(threads, QUICK_BOUND_THREADS), 0, Duration.ZERO, 1, Duration.ZERO, false);
            case FULL -> new Plan(threads, 3, Duration.ofSeconds(3), 5, Duration.ofSeconds(5), true);
        };
    }

    private static String describe(Plan p) {
        return p.timeBased
                ? String.format(
                        Locale.ROOT,
                        "%,d threads, %d warm-up x %d s, %d iterations x %d s",
                        p.threads,
                        p.warmupIterations,
                        p.warmupTime.toSeconds(),
                        p.iterations,
                        p.iterationTime.toSeconds())
                : String.format(
                        Locale.ROOT,
                        "%,d threads, %d warm-up + %d measured operation%s",
                        p.threads,
                        p.warmupIterations,
                        p.iterations,
                        p.iterations == 1 ? "" : "s");
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
                Class<?> c = MethodHandles.lookup()
                        .defineHiddenClass(classInitBytes, true)
                        .lookupClass();
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

    private static double[] toArray(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    private static int carriers() {
        int parallelism = SchedulerSnapshot.take().parallelism();
        return parallelism > 0
                ? parallelism
                : Integer.getInteger(
                        "jdk.virtualThreadScheduler.parallelism",
                        Runtime.getRuntime().availableProcessors());
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
