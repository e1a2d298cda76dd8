package dev.weft.pin;

import dev.weft.pin.internal.PinAggregator;
import dev.weft.scheduler.SchedulerSampler;
import dev.weft.scheduler.SchedulerSamples;
import dev.weft.scheduler.SchedulerSnapshot;
import dev.weft.thread.internal.Durations;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jetbrains.annotations.Blocking;

/**
 * Watches this JVM for pinned virtual threads through JFR and keeps them aggregated by site.
 *
 * <p>A virtual thread is <em>pinned</em> when it tries to park (sleep, wait for a lock, block on a
 * socket) but cannot unmount from its carrier thread, so the carrier blocks with it and the
 * scheduler has one carrier less. On JDK 24+ this still happens when the thread blocks inside a
 * class initializer, while waiting for another thread's class initialization, or under a native
 * frame (JNI, FFM upcalls); on JDK 21-23 also inside {@code synchronized} and {@code Object.wait}.
 *
 * <p>The monitor is a JFR {@code RecordingStream} on {@code jdk.VirtualThreadPinned} (pins at least
 * {@link Builder#threshold(Duration) threshold} long, 20 ms by default, 0 to see every one) and
 * {@code jdk.VirtualThreadSubmitFailed}. Every pin is counted at its {@link PinSite site}: its
 * pinned reason and the top frames of its stack (JFR often leaves the pinned thread unnamed, so
 * sites are told apart by stack, never by thread name). It can call back on each pin, log a
 * periodic summary to a {@link System.Logger}, and sample the scheduler's health with a
 * {@link SchedulerSampler}; its {@link #report() report} has all three, as data and as text.
 *
 * <pre>{@code
 * PinMonitor monitor = PinMonitor.builder()
 *         .threshold(Duration.ofMillis(20))
 *         .summaryEvery(Duration.ofMinutes(1))             // WARNING log lines when pins happened
 *         .onPin(pin -> metrics.increment("pins"))
 *         .start();
 * ...
 * System.out.println(monitor.report().toText());
 * monitor.close();
 * }</pre>
 *
 * <p>{@link #report()} is exact: it commits a marker event and waits until JFR has delivered it
 * (JFR delivers to streams once a second), so every pin that ended before the call is in it.
 * Tests use a {@link PinCapture} instead, which gives the pins of one period within milliseconds.
 *
 * <p>Overhead: on work that never pins, the stream is idle apart from JFR's flush once a second;
 * the lab's {@code pinning} scenario measures it. Each pin costs JFR a stack trace.
 *
 * <p>The monitor's threads are daemon threads: a monitor never keeps a JVM alive. Callbacks run
 * on the monitor's thread, one at a time, and must not block for long.
 *
 * <p>Memory consistency effects: the effects of a pinned thread before its pin ends
 * happen-before {@link #report()} returns a report that counts the pin.
 */
public final class PinMonitor implements AutoCloseable {

    /** The default threshold, JFR's own: shorter pins are not recorded. */
    public static final Duration DEFAULT_THRESHOLD = Duration.ofMillis(20);

    /** The longest a report waits for JFR to deliver its marker before it gives up. */
    public static final Duration DELIVERY_TIMEOUT = Duration.ofSeconds(30);

    private static final AtomicLong IDS = new AtomicLong();

    private final long id = IDS.incrementAndGet();
    private final Duration threshold;
    private final Consumer<? super PinEvent> onPin;
    private final Duration summaryEvery;
    private final System.Logger logger;
    private final PinAggregator aggregator;
    private final SchedulerSampler sampler;
    private final StarvationDetector starvation; // null unless Builder.detectStarvation
    private long episodesAtLastSummary;
    private final Instant started = Instant.now();
    private final Map<Long, Delivery> waiting = new ConcurrentHashMap<>();
    private final CountDownLatch running = new CountDownLatch(1);
    private final JfrPinStream stream;

    // only touched by the stream's thread
    private final List<Delivery> seen = new ArrayList<>();
    private long nextSummary;
    private Map<List<Object>, Long> countsAtLastSummary = Map.of();
    private long pinsAtLastSummary;
    private long failuresAtLastSummary;

    private volatile Throwable failure;
    // stop() waits for JFR (a latch) and joins the stream's thread: a ReentrantLock, not
    // synchronized, so that a virtual thread calling stop on JDK 21-23 does not pin its carrier
    // while it waits (weft's own audit flags synchronized around blocking).
    private final ReentrantLock stopping = new ReentrantLock();
    private volatile PinReport last; // written under stopping; the final report once stopped

    private PinMonitor(Builder b) {
        this.threshold = b.threshold;
        this.onPin = b.onPin;
        this.summaryEvery = b.summaryEvery;
        this.logger = b.logger;
        this.aggregator = new PinAggregator(b.topFrames, b.maxSites);
        this.nextSummary = summaryEvery == null ? 0 : System.nanoTime() + summaryEvery.toNanos();
        this.stream = new JfrPinStream(this, threshold);
        this.sampler = b.schedulerInterval.isZero()
                ? null
                : SchedulerSampler.start(b.schedulerInterval, b.schedulerKeep, SchedulerSnapshot::take);
        this.starvation = b.starvation == null ? null : b.starvation.start();
    }

    /**
     * What the starvation detector started with this monitor ({@link Builder#detectStarvation})
     * has seen so far, or empty when there is none.
     */
    public java.util.Optional<StarvationReport> starvation() {
        return starvation == null ? java.util.Optional.empty() : java.util.Optional.of(starvation.report());
    }

    /** Starts configuring a monitor. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * True when this JVM can run a monitor: it has the {@code jdk.jfr} module and Flight Recorder.
     */
    public static boolean isAvailable() {
        return ModuleLayer.boot().findModule("jdk.jfr").isPresent() && jdk.jfr.FlightRecorder.isAvailable();
    }

    /** The shortest pin this monitor records. */
    public Duration threshold() {
        return threshold;
    }

    /** A number that tells this monitor apart in thread names and logs. */
    public long id() {
        return id;
    }

    /** True once {@link #stop()} or {@link #close()} was called. */
    public boolean isStopped() {
        return last != null;
    }

    /**
     * Waits until JFR has delivered to this monitor every event committed before the call.
     *
     * @return false if that took longer than {@code timeout}
     * @throws IllegalStateException if the monitor is stopped or has failed
     * @throws InterruptedException  if interrupted while waiting
     */
    @Blocking
    public boolean sync(Duration timeout) throws InterruptedException {
        checkUsable();
        return await(mark(), timeout);
    }

    /**
     * Everything seen since the monitor started, up to now: waits (at most
     * {@link #DELIVERY_TIMEOUT}) until JFR has delivered what happened before the call. After
     * {@link #stop()}, the final report.
     *
     * @throws IllegalStateException if JFR did not deliver in time or the monitor failed
     */
    @Blocking
    public PinReport report() {
        PinReport stopped = last;
        if (stopped != null) {
            return stopped;
        }
        syncOrThrow();
        return aggregator.report(started, Instant.now(), threshold, sampler == null ? null : sampler.sampleNow());
    }

    /**
     * Delivers what is left, stops recording and sampling, and returns the final report. Calling
     * it again returns the same report. Called while the JVM shuts down (from a shutdown hook), it
     * does not wait for JFR's last delivery, which JFR's own shutdown may have cut off: the report
     * then holds the pins delivered so far, and the JVM's exit is not held up.
     *
     * @throws IllegalStateException if JFR did not deliver what was left in time (the monitor is
     *                               stopped all the same), or when called from the onPin callback
     */
    @Blocking
    public PinReport stop() {
        stopping.lock();
        try {
            return stopLocked();
        } finally {
            stopping.unlock();
        }
    }

    private PinReport stopLocked() {
        if (last != null) {
            return last;
        }
        if (stream.isStreamThread()) {
            throw new IllegalStateException("stop waits for the monitor's own thread, which runs the onPin callback:"
                    + " call it from another thread");
        }
        IllegalStateException undelivered = null;
        try {
            // From a shutdown hook (Spring closing its context, say) JFR's own hook may already
            // have ended the stream: a marker would never arrive, and the JVM's exit would wait
            // DELIVERY_TIMEOUT for it. The final report then lacks at most JFR's last second.
            if (failure == null && !jvmShuttingDown()) {
                syncOrThrow();
            }
        } catch (IllegalStateException e) {
            undelivered = e;
        }
        SchedulerSamples samples = sampler == null ? null : sampler.stop();
        if (starvation != null) {
            starvation.stop();
        }
        PinReport report = aggregator.report(started, Instant.now(), threshold, samples);
        last = report;
        try {
            stream.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        wakeAll();
        if (undelivered != null) {
            throw undelivered;
        }
        return report;
    }

    /**
     * True while the JVM runs its shutdown hooks. The JDK offers no query for it; registering a
     * hook is refused with IllegalStateException once shutdown has begun, and is otherwise undone.
     */
    static boolean jvmShuttingDown() {
        Thread probe = new Thread(() -> {});
        try {
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException shuttingDown) {
            return true;
        }
    }

    /** Stops the monitor; see {@link #stop()}. */
    @Blocking
    @Override
    public void close() {
        stop();
    }

    // ---- called by the stream's thread ----------------------------------------------------

    void pinned(PinEvent pin) {
        if (pin.duration().compareTo(threshold) < 0) {
            return; // recorded for another recording with a lower threshold: JFR applies the lowest to all
        }
        aggregator.add(pin);
        if (onPin != null) {
            try {
                onPin.accept(pin);
            } catch (RuntimeException | Error e) {
                logger.log(
                        Level.WARNING,
                        "weft pin monitor " + id + ": the onPin callback threw; the pin is still counted",
                        e);
            }
        }
    }

    void submitFailed(String message) {
        aggregator.addSubmitFailure(message);
    }

    void marked(long mark) {
        Delivery d = waiting.remove(mark);
        if (d != null) {
            seen.add(d); // another monitor's or capture's mark is not waited for here
        }
    }

    /** After a flush segment is fully dispatched: the marks in it are delivered, with all before them. */
    void flushed() {
        // The summary first: a caller whose mark is in this segment then also sees its log line.
        if (summaryEvery != null && System.nanoTime() - nextSummary >= 0) {
            nextSummary = System.nanoTime() + summaryEvery.toNanos();
            try {
                logSummary();
            } catch (RuntimeException e) {
                logger.log(Level.WARNING, "weft pin monitor " + id + ": the periodic summary failed", e);
            }
        }
        if (!seen.isEmpty()) {
            for (Delivery d : seen) {
                d.delivered = true;
                d.done.countDown();
            }
            seen.clear();
        }
    }

    void failed(Throwable t) {
        failure = t;
        logger.log(Level.ERROR, "weft pin monitor " + id + ": the JFR stream failed; pins are no longer seen", t);
        wakeAll();
    }

    // ---- internals ------------------------------------------------------------------------

    /** Starts the stream and waits until its recording runs, so that every later pin is seen. */
    private PinMonitor awaitRunning() {
        stream.start(running::countDown);
        try {
            boolean started = false;
            long deadline = System.nanoTime() + DELIVERY_TIMEOUT.toNanos();
            while (!started) {
                if (failure != null) {
                    throw new IllegalStateException(
                            "the pin monitor's JFR stream failed to start: " + failure, failure);
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("the pin monitor's JFR stream did not start within "
                            + DELIVERY_TIMEOUT.toSeconds() + " s; is the JVM overloaded?");
                }
                started = running.await(50, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException | RuntimeException e) {
            closeQuietly(e);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting the pin monitor", e);
            }
            throw (RuntimeException) e;
        } finally {
            stream.started();
        }
        return this;
    }

    private void closeQuietly(Exception cause) {
        try {
            if (sampler != null) {
                sampler.stop();
            }
            stream.close();
        } catch (InterruptedException | RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    private Delivery mark() {
        Delivery d = new Delivery(Mark.next());
        waiting.put(d.mark, d);
        Mark.commit(d.mark);
        return d;
    }

    /** Waits for a mark's delivery; false on timeout. */
    private boolean await(Delivery d, Duration timeout) throws InterruptedException {
        boolean done = d.done.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (!done) {
            waiting.remove(d.mark);
        }
        if (failure != null) {
            throw new IllegalStateException("the pin monitor's JFR stream failed: " + failure, failure);
        }
        if (done && !d.delivered) {
            throw new IllegalStateException("the pin monitor was stopped while waiting for JFR");
        }
        return done;
    }

    /** Marks and waits at most {@link #DELIVERY_TIMEOUT}, or throws. */
    private void syncOrThrow() {
        checkUsable();
        boolean done;
        try {
            done = await(mark(), DELIVERY_TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for JFR to deliver pin events", e);
        }
        if (!done) {
            throw new IllegalStateException("JFR did not deliver the pin monitor's marker within "
                    + DELIVERY_TIMEOUT.toSeconds() + " s; is the JVM overloaded?");
        }
    }

    private void checkUsable() {
        if (stream.isStreamThread()) {
            throw new IllegalStateException("report, sync and stop wait for the monitor's own thread, which runs the"
                    + " onPin callback: call them from another thread");
        }
        if (failure != null) {
            throw new IllegalStateException("the pin monitor's JFR stream failed: " + failure, failure);
        }
        if (isStopped()) {
            throw new IllegalStateException("the pin monitor is stopped; start a new one");
        }
    }

    private void wakeAll() {
        for (Long k : List.copyOf(waiting.keySet())) {
            Delivery d = waiting.remove(k);
            if (d != null) {
                d.done.countDown();
            }
        }
    }

    private void logSummary() {
        PinReport now =
                aggregator.report(started, Instant.now(), threshold, sampler == null ? null : sampler.samples());
        Map<List<Object>, Long> counts = new HashMap<>();
        List<String> grown = new ArrayList<>();
        for (PinSite s : now.sites()) {
            List<Object> key = List.of(String.valueOf(s.reason()), s.frames());
            counts.put(key, s.count());
            long delta = s.count() - countsAtLastSummary.getOrDefault(key, 0L);
            if (delta > 0 && grown.size() < 3) {
                PinFrame at = s.firstApplicationFrame();
                grown.add(
                        delta + " x " + (s.reason() == null ? "pinned" : s.reason()) + (at == null ? "" : " at " + at));
            }
        }
        long newPins = now.pins() - pinsAtLastSummary;
        long newFailures = now.submitFailures() - failuresAtLastSummary;
        countsAtLastSummary = counts;
        pinsAtLastSummary = now.pins();
        failuresAtLastSummary = now.submitFailures();
        String scheduler = (now.scheduler() == null
                        ? ""
                        : "; scheduler: " + now.scheduler().summary())
                + StarvationSummary.line(starvation);
        long episodes = starvation == null ? 0 : starvation.report().episodes();
        boolean starved = episodes > episodesAtLastSummary;
        episodesAtLastSummary = episodes;
        if (newPins == 0 && newFailures == 0 && !starved) {
            logger.log(
                    Level.DEBUG,
                    () -> String.format(
                            Locale.ROOT,
                            "weft pin monitor %d: no pins in the last %s (%d since start)%s",
                            id,
                            Durations.human(summaryEvery),
                            now.pins(),
                            scheduler));
            return;
        }
        logger.log(
                Level.WARNING,
                String.format(
                        Locale.ROOT,
                        "weft pin monitor %d: %d %s in the last %s (%d since start)%s; top: %s%s",
                        id,
                        newPins,
                        newPins == 1 ? "pin" : "pins",
                        Durations.human(summaryEvery),
                        now.pins(),
                        newFailures == 0 ? "" : ", " + newFailures + " virtual threads could not be scheduled",
                        grown.isEmpty()
                                ? (newPins == 0 ? "none" : "(sites beyond the site limit)")
                                : String.join("; ", grown),
                        scheduler));
    }

    /** One mark: {@code done} is counted down when it was delivered or the monitor stopped. */
    private static final class Delivery {
        final long mark;
        final CountDownLatch done = new CountDownLatch(1);
        volatile boolean delivered;

        Delivery(long mark) {
            this.mark = mark;
        }
    }

    /**
     * Configures a {@link PinMonitor}. Every setting has a default; {@link #start()} starts it.
     */
    public static final class Builder {
        private Duration threshold = DEFAULT_THRESHOLD;
        private int topFrames = PinAggregator.DEFAULT_TOP_FRAMES;
        private int maxSites = PinAggregator.DEFAULT_MAX_SITES;
        private Consumer<? super PinEvent> onPin;
        private Duration summaryEvery;
        private StarvationDetector.Builder starvation;
        private System.Logger logger = System.getLogger("dev.weft.pin");
        private Duration schedulerInterval = Duration.ofSeconds(1);
        private int schedulerKeep = 600;

        private Builder() {}

        /**
         * Records pins at least this long (default 20 ms). {@code Duration.ZERO} records every pin,
         * as tests want; production keeps a threshold so that only pins that matter cost a stack
         * trace.
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder threshold(Duration threshold) {
            Objects.requireNonNull(threshold, "threshold");
            if (threshold.isNegative()) {
                throw new IllegalArgumentException("threshold must be >= 0 (0 records every pin); got " + threshold);
            }
            this.threshold = threshold;
            return this;
        }

        /**
         * How many frames below the virtual-thread machinery identify a site (default 12).
         *
         * @throws IllegalArgumentException if below 1
         */
        public Builder topFrames(int topFrames) {
            if (topFrames < 1) {
                throw new IllegalArgumentException("topFrames must be >= 1; got " + topFrames);
            }
            this.topFrames = topFrames;
            return this;
        }

        /**
         * How many sites to keep (default 1,000); pins at further sites are only counted.
         *
         * @throws IllegalArgumentException if below 1
         */
        public Builder maxSites(int maxSites) {
            if (maxSites < 1) {
                throw new IllegalArgumentException("maxSites must be >= 1; got " + maxSites);
            }
            this.maxSites = maxSites;
            return this;
        }

        /**
         * Calls {@code callback} with every pin, on the monitor's thread, after it is counted. An
         * exception it throws is logged at WARNING and does not stop the monitor. The callback
         * must not call the monitor's {@code report}, {@code sync} or {@code stop}, which wait for
         * that thread (they throw IllegalStateException there).
         */
        public Builder onPin(Consumer<? super PinEvent> callback) {
            this.onPin = Objects.requireNonNull(callback, "callback");
            return this;
        }

        /**
         * Logs a summary every {@code period}: at WARNING with the busiest new sites when pins or
         * failed submissions happened in the period, at DEBUG otherwise. Off by default.
         *
         * @throws IllegalArgumentException if not positive
         */
        public Builder summaryEvery(Duration period) {
            Objects.requireNonNull(period, "period");
            if (period.isNegative() || period.isZero()) {
                throw new IllegalArgumentException(
                        "summary period must be positive, e.g. Duration.ofMinutes(1); got " + period);
            }
            this.summaryEvery = period;
            return this;
        }

        /** Where summaries and monitor errors go (default: {@code System.getLogger("dev.weft.pin")}). */
        public Builder logger(System.Logger logger) {
            this.logger = Objects.requireNonNull(logger, "logger");
            return this;
        }

        /**
         * Samples the scheduler every {@code interval}, keeping the newest {@code keep} samples for
         * the report (default: every second, the last 600). {@code Duration.ZERO} turns sampling off.
         *
         * @throws IllegalArgumentException if {@code interval} is negative, or {@code keep} is below
         *                                  1 while sampling is on
         */
        public Builder sampleScheduler(Duration interval, int keep) {
            Objects.requireNonNull(interval, "interval");
            if (interval.isNegative()) {
                throw new IllegalArgumentException(
                        "scheduler sampling interval must be >= 0 (0 turns it off); got " + interval);
            }
            if (!interval.isZero() && keep < 1) {
                throw new IllegalArgumentException("keep at least 1 scheduler sample; got " + keep);
            }
            this.schedulerInterval = interval;
            this.schedulerKeep = keep;
            return this;
        }

        /**
         * Also runs a {@link StarvationDetector} built by {@code detector} (its threshold and
         * {@code onStarvation} callback) for as long as the monitor runs: the periodic summary
         * then says how long virtual threads waited for a carrier, and warns when that grew;
         * {@link PinMonitor#starvation()} has its report. Off unless set.
         */
        public Builder detectStarvation(StarvationDetector.Builder detector) {
            this.starvation = Objects.requireNonNull(detector, "detector");
            return this;
        }

        /**
         * Starts the monitor and returns once its JFR stream is recording, so that every pin after
         * this returns is seen.
         *
         * @throws IllegalStateException if JFR is not available in this JVM (see
         *                               {@link PinMonitor#isAvailable()}) or the stream did not
         *                               start within {@link PinMonitor#DELIVERY_TIMEOUT}
         */
        @Blocking
        public PinMonitor start() {
            if (ModuleLayer.boot().findModule("jdk.jfr").isEmpty()) {
                throw new IllegalStateException("the pin monitor needs JFR, but this runtime has no jdk.jfr module;"
                        + " add it to the image (jlink --add-modules jdk.jfr) or run on a full JDK");
            }
            return new PinMonitor(this).awaitRunning();
        }
    }
}
