package dev.weft.pin;

import dev.weft.pin.internal.PinAggregator;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.jetbrains.annotations.Blocking;

/**
 * Sees carrier starvation at run time: virtual threads ready to run that wait for a carrier
 * because every carrier is kept busy (a {@code Thread.yield} or busy-wait loop, CPU-heavy tasks,
 * pinning), on any JDK from 21.
 *
 * <p>How: a canary virtual thread waits, and a platform thread of the detector (its clock) wakes
 * it every {@code period}. Woken, it is queued to the scheduler like any other virtual thread;
 * how late it then runs is the scheduling delay every ready virtual thread is suffering. A delay
 * of at least {@code threshold} is a starvation episode. (Until decision 0856 the canary slept on
 * a timer of its own beside a platform thread that only timed itself: twice the wake-ups.) Each episode names what held the carriers, aggregated by site (the top
 * frames below the virtual-thread machinery) as the pin monitor aggregates pins: on JDK 24 and
 * later from JFR execution samples of virtual threads kept while the detector runs; on JDK 21-23,
 * whose JFR takes none of virtual threads, from a JSON thread dump
 * ({@code HotSpotDiagnosticMXBean.dumpThreads}, which lists virtual threads) that the clock
 * takes once per episode, when the canary has waited for {@code threshold}, keeping the virtual
 * threads that were on a carrier.
 *
 * <pre>{@code
 * try (StarvationDetector d = StarvationDetector.builder().threshold(Duration.ofMillis(20)).start()) {
 *     runWorkload();
 *     StarvationReport r = d.stop();
 *     if (!r.isEmpty()) System.err.println(r.toText());
 * }
 * }</pre>
 *
 * <p>A late canary during which stacks were taken and no virtual thread was on a carrier is
 * not an episode: nothing virtual held the carriers; the operating system did not run them (or
 * the thread that wakes the canary) on time, as on a machine with more runnable threads than
 * cores. Such delays are counted apart ({@link StarvationReport#unattributed()}); on a 2-core
 * machine at load 16 the lab saw 1-3 of 21-63 ms per two seconds for every pool, none with a GC
 * pause, while a {@code Thread.yield} spin gave 36 with stacks. Without a stack source (the
 * runtime has neither JFR on 24+ nor the {@code jdk.management} module on 21-23, or
 * {@link Builder#sampleStacks} is off) every late canary counts, without sites.
 *
 * <p>A busy machine delays every thread, not only virtual ones: the canary's wait counts from the
 * moment the clock woke it, so the clock's own lateness is never in it, and the clock's lateness
 * on its ticks during the canary's wait (the operating system's share) is subtracted, so that
 * what is reported is the wait for a carrier.
 *
 * <p>Cost: per {@code period}, the clock's wake-up and a carrier's to run the canary (no timer of
 * the scheduler's) and, on JDK 24+, JFR execution sampling of running threads every
 * {@code samplePeriod} (measured by the lab's {@code pool} scenario on a workload that never
 * starves; starting the JFR recording takes a moment of CPU once); on JDK 21-23, only during an
 * episode, one thread dump (hundreds of milliseconds of one core with thousands of virtual
 * threads). Decision 0856 has the CPU of each part.
 */
public final class StarvationDetector implements AutoCloseable {

    /**
     * Below this feature version the stacks come from thread dumps taken during an episode, not
     * from JFR: JDK 21's JFR takes no execution samples of virtual threads. Not above: on
     * Temurin 25.0.3 a JSON thread dump crashed the JVM (SIGSEGV in {@code stackChunkOopDesc::sender})
     * once in four tries while virtual threads waited in {@code Object.wait}.
     */
    static final int DUMP_BELOW_JDK = 24;

    /** The scheduling delay counted as starvation unless set: 20 ms, the pin monitor's threshold. */
    public static final Duration DEFAULT_THRESHOLD = Duration.ofMillis(20);

    private final long period;
    private final long threshold;
    private final int topFrames;
    private final Consumer<? super Episode> onStarvation;
    private volatile StackSource sampler;
    /** When the clock woke the canary, while it waits to run; {@code Long.MAX_VALUE} otherwise. */
    private volatile long canaryDue = Long.MAX_VALUE;

    private final Thread canary;
    private final Instant from = Instant.now();
    private final Object lock = new Object();
    private final List<Episode> pending = new ArrayList<>();
    private final Map<List<PinFrame>, long[]> sites = new HashMap<>();
    /** The clock's greatest lateness on its ticks while the canary waits; reset when it wakes the canary. */
    private final java.util.concurrent.atomic.AtomicLong clockLate = new java.util.concurrent.atomic.AtomicLong();

    private final Thread clock;
    private volatile boolean running = true;
    private long episodes;
    private long unattributed;
    private long starvedNanos;
    private long maxNanos;
    private StarvationReport last;

    /**
     * One starvation episode: when the canary was due, how long past that it ran, and what ran on
     * the carriers meanwhile (empty when JFR is off or took no sample in the window).
     *
     * @param due    when the canary should have run
     * @param waited how long it waited beyond that for a carrier
     * @param sites  the virtual threads JFR saw on the carriers in that window, by site
     */
    public record Episode(Instant due, Duration waited, List<StarvationReport.Site> sites) {

        /** Copies the sites. */
        public Episode {
            sites = List.copyOf(sites);
        }
    }

    private StarvationDetector(Builder b) {
        this.period = b.period.toNanos();
        this.threshold = b.threshold.toNanos();
        this.topFrames = b.topFrames;
        this.onStarvation = b.onStarvation;
        StackSource s = null;
        if (b.sampleStacks) {
            try {
                s = Runtime.version().feature() >= DUMP_BELOW_JDK
                        ? new StarvationSampler(b.samplePeriod, this::inWait)
                        : new DumpStacks();
            } catch (IllegalStateException | LinkageError | java.io.IOException noSource) {
                s = null; // no JFR or no jdk.management in this runtime: episodes are still timed, without stacks
            }
        }
        this.sampler = s;
        this.canary = Thread.ofVirtual().name(StarvationSampler.CANARY).start(this::watch);
        this.clock =
                Thread.ofPlatform().daemon(true).name("weft-starvation-clock").start(this::clock);
    }

    /** Starts building a detector. */
    public static Builder builder() {
        return new Builder();
    }

    /** The scheduling delay counted as starvation. */
    public Duration threshold() {
        return Duration.ofNanos(threshold);
    }

    /**
     * The clock, on a platform thread: every {@code period} it wakes the canary unless the canary
     * still waits to run, in which case it notes its own lateness on that tick (the operating
     * system's share of the wait) and, on JDK 21-23, once the wait reaches {@code threshold},
     * takes the thread dump. Ticks fall every {@code period} and, while the canary waits, also at
     * the moment its wait reaches {@code threshold}.
     */
    private void clock() {
        long tick = System.nanoTime() + period; // when the canary is next woken
        long dumpedFor = Long.MIN_VALUE;
        while (running) {
            long due = canaryDue;
            long wake = due == Long.MAX_VALUE || due == dumpedFor || !(sampler instanceof DumpStacks)
                    ? tick
                    : Math.min(tick, due + threshold);
            long now;
            while ((now = System.nanoTime()) < wake && running) {
                LockSupport.parkNanos(this, wake - now);
            }
            if (!running) {
                break;
            }
            due = canaryDue;
            if (due == Long.MAX_VALUE) {
                if (now >= tick) {
                    clockLate.set(0);
                    canaryDue = now;
                    LockSupport.unpark(canary);
                    tick = now + period;
                }
                continue;
            }
            clockLate.accumulateAndGet(now - wake, Math::max);
            if (now >= tick) {
                tick = now + period;
            }
            if (due != dumpedFor && now - due >= threshold && sampler instanceof DumpStacks dumps) {
                dumpedFor = due;
                dumps.dump();
            }
        }
    }

    /** The canary: waits until the clock wakes it, and times how long it then waited for a carrier. */
    private void watch() {
        while (running) {
            LockSupport.park(this);
            long due = canaryDue;
            if (due == Long.MAX_VALUE) {
                continue; // not woken by the clock (a spurious return from park)
            }
            long now = System.nanoTime();
            long osLate = clockLate.get(); // before the clock may start the next wait
            long raw = now - due;
            long late = raw - osLate;
            if (late >= threshold && running) {
                synchronized (lock) {
                    Instant wake = Instant.now();
                    pending.add(new Episode(wake.minusNanos(raw), Duration.ofNanos(late), List.of()));
                }
            }
            // Only now: until the episode is pending, the wait under way is what keeps its samples.
            canaryDue = Long.MAX_VALUE;
            resolve(false);
        }
    }

    /**
     * Whether a stack sample taken at {@code t} can name what held the carriers: it lies in the
     * canary's wait under way, or in the window of an episode not attributed yet (see {@link
     * #resolve}). Called by the JFR sampler for each sample of a virtual thread, once delivered.
     */
    private boolean inWait(Instant t) {
        long due = canaryDue;
        if (due != Long.MAX_VALUE) {
            Instant dueAt = Instant.now().minusNanos(System.nanoTime() - due);
            if (!t.isBefore(dueAt.minusMillis(1))) {
                return true;
            }
        }
        synchronized (lock) {
            for (Episode e : pending) {
                if (!t.isBefore(e.due()) && !t.isAfter(windowEnd(e))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The end of the window whose samples attribute {@code e}: its wait and one period more. */
    private Instant windowEnd(Episode e) {
        return e.due().plus(e.waited()).plusMillis(period / 1_000_000 + 1);
    }

    /** Attributes pending episodes whose samples JFR has delivered (all of them when {@code force}). */
    private void resolve(boolean force) {
        List<Episode> done = new ArrayList<>();
        synchronized (lock) {
            for (Iterator<Episode> it = pending.iterator(); it.hasNext(); ) {
                Episode e = it.next();
                Instant end = windowEnd(e);
                StackSource sampler = this.sampler;
                if (force || sampler == null || sampler.deliveredUpTo(end)) {
                    it.remove();
                    Map<List<PinFrame>, long[]> here = new HashMap<>();
                    if (sampler != null) {
                        for (SampleWindow.Sample s : sampler.between(e.due(), end)) {
                            List<PinFrame> site = PinAggregator.siteFrames(s.frames(), topFrames);
                            here.computeIfAbsent(site, k -> new long[1])[0]++;
                            sites.computeIfAbsent(site, k -> new long[1])[0]++;
                        }
                    }
                    if (sampler != null && here.isEmpty()) {
                        // Stacks were taken and no virtual thread was on a carrier: the carriers
                        // were not kept busy by virtual threads; the operating system (or a
                        // safepoint) did not run them or the thread that wakes the canary.
                        unattributed++;
                        continue;
                    }
                    episodes++;
                    starvedNanos += e.waited().toNanos();
                    maxNanos = Math.max(maxNanos, e.waited().toNanos());
                    done.add(new Episode(e.due(), e.waited(), ranked(here)));
                }
            }
        }
        for (Episode e : done) {
            try {
                onStarvation.accept(e);
            } catch (RuntimeException failure) {
                System.getLogger(StarvationDetector.class.getName())
                        .log(System.Logger.Level.WARNING, "the onStarvation callback threw", failure);
            }
        }
    }

    private static List<StarvationReport.Site> ranked(Map<List<PinFrame>, long[]> m) {
        List<StarvationReport.Site> list = new ArrayList<>();
        m.forEach((frames, n) -> list.add(new StarvationReport.Site(frames, n[0])));
        list.sort(Comparator.comparingLong(StarvationReport.Site::samples).reversed());
        return list;
    }

    /**
     * What the detector has seen so far. Episodes whose stacks have not been delivered yet count
     * as episodes, without sites, until they are.
     */
    public StarvationReport report() {
        resolve(false);
        synchronized (lock) {
            if (last != null) {
                return last;
            }
            long n = episodes;
            long starved = starvedNanos;
            long max = maxNanos;
            for (Episode e : pending) {
                n++;
                starved += e.waited().toNanos();
                max = Math.max(max, e.waited().toNanos());
            }
            return new StarvationReport(
                    from,
                    Instant.now(),
                    Duration.ofNanos(threshold),
                    n,
                    Duration.ofNanos(starved),
                    Duration.ofNanos(max),
                    ranked(sites),
                    unattributed);
        }
    }

    /**
     * Stops the canary and the sampling and returns the final report, after waiting up to 2 s
     * for JFR to deliver the samples of the last episodes. Idempotent.
     */
    @Blocking
    public StarvationReport stop() {
        synchronized (lock) {
            if (last != null) {
                return last;
            }
        }
        running = false;
        LockSupport.unpark(canary);
        LockSupport.unpark(clock);
        try {
            canary.join(Duration.ofSeconds(5));
            clock.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (hasPending() && System.nanoTime() < end) {
            resolve(false);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        resolve(true);
        StackSource s = sampler;
        sampler = null;
        if (s != null) {
            s.close();
        }
        StarvationReport r = report();
        synchronized (lock) {
            last = r;
        }
        return r;
    }

    private boolean hasPending() {
        synchronized (lock) {
            return !pending.isEmpty();
        }
    }

    /** Same as {@link #stop()}. */
    @Blocking
    @Override
    public void close() {
        stop();
    }

    /** Options of a {@link StarvationDetector}. */
    public static final class Builder {
        private Duration threshold = DEFAULT_THRESHOLD;
        private Duration period = Duration.ofMillis(10);
        private Duration samplePeriod = Duration.ofMillis(10);
        private boolean sampleStacks = true;
        private int topFrames = 5;
        private Consumer<? super Episode> onStarvation = e -> {};

        private Builder() {}

        /** A canary delay of at least this is an episode (default 20 ms; positive). */
        public Builder threshold(Duration threshold) {
            this.threshold = positive("threshold", threshold);
            return this;
        }

        /** How often the clock wakes the canary (default 10 ms; positive). */
        public Builder period(Duration period) {
            this.period = positive("period", period);
            return this;
        }

        /**
         * Whether to name what held the carriers (default true): JFR execution samples of virtual
         * threads on JDK 24+, a thread dump per episode on JDK 21-23; and how often JFR samples
         * (default 10 ms; not used on JDK 21-23).
         */
        public Builder sampleStacks(boolean sampleStacks, Duration samplePeriod) {
            this.sampleStacks = sampleStacks;
            this.samplePeriod = positive("samplePeriod", samplePeriod);
            return this;
        }

        /** How many top frames identify a site (default 5; at least 1). */
        public Builder topFrames(int topFrames) {
            if (topFrames < 1) {
                throw new IllegalArgumentException("topFrames must be at least 1; got " + topFrames);
            }
            this.topFrames = topFrames;
            return this;
        }

        /** Called once per episode (not for an unattributed delay), on the canary's thread, once its stacks are known. */
        public Builder onStarvation(Consumer<? super Episode> onStarvation) {
            this.onStarvation = Objects.requireNonNull(onStarvation, "onStarvation");
            return this;
        }

        /** Starts the canary (and the JFR sampling). */
        public StarvationDetector start() {
            return new StarvationDetector(this);
        }

        private static Duration positive(String option, Duration d) {
            Objects.requireNonNull(d, option);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(option + " must be positive; got " + d);
            }
            return d;
        }
    }
}
