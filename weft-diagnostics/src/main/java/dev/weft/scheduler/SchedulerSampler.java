package dev.weft.scheduler;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jetbrains.annotations.Blocking;

/**
 * Takes a {@link SchedulerSnapshot} at a fixed interval until stopped, to show how the scheduler
 * and the platform threads behaved while some work ran.
 *
 * <p>Sampling runs on one daemon <em>platform</em> thread named {@code weft-scheduler-sampler}: a
 * virtual sampler would be delayed exactly when carriers are saturated, which is when the
 * figures matter. That thread is counted in the platform-thread figures it reports.
 *
 * <pre>{@code
 * SchedulerSampler sampler = SchedulerSampler.start(Duration.ofMillis(20));
 * runTheWorkload();
 * SchedulerSamples seen = sampler.stop();
 * System.out.println("peak platform threads: " + seen.peakPlatformThreads());
 * }</pre>
 *
 * <p>A sampler that runs for the life of a service keeps a bounded window:
 * {@link #start(Duration, int)} keeps the newest {@code capacity} snapshots and
 * {@link #samples()} reads them while sampling goes on.
 *
 * <p>{@link #start} resets the JVM's peak platform-thread count, so the peak reported is the
 * peak of the sampled period (a peak between two samples is still seen: the JVM tracks it).
 *
 * <p>Memory consistency effects: a snapshot taken by the sampling thread happens-before
 * {@link #samples()} or {@link #stop()} returns it.
 */
public final class SchedulerSampler {

    private final Duration interval;
    private final int capacity;
    private final Supplier<SchedulerSnapshot> source;
    private final ArrayDeque<SchedulerSnapshot> samples = new ArrayDeque<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Thread thread;
    private long taken; // guarded by samples
    private boolean finished; // guarded by samples
    private RuntimeException failure; // guarded by samples

    private SchedulerSampler(Duration interval, int capacity, Supplier<SchedulerSnapshot> source) {
        this.interval = interval;
        this.capacity = capacity;
        this.source = source;
        this.thread =
                Thread.ofPlatform().name("weft-scheduler-sampler").daemon(true).unstarted(this::loop);
    }

    /**
     * Resets the peak platform-thread count, takes a first snapshot and starts sampling every
     * {@code interval}, keeping every snapshot until {@link #stop()}.
     *
     * @throws IllegalArgumentException if {@code interval} is not positive
     */
    public static SchedulerSampler start(Duration interval) {
        return start(interval, Integer.MAX_VALUE);
    }

    /**
     * As {@link #start(Duration)}, but keeps only the newest {@code capacity} snapshots, so that a
     * sampler can run for days in bounded memory.
     *
     * @throws IllegalArgumentException if {@code interval} is not positive or {@code capacity} is
     *                                  below 1
     */
    public static SchedulerSampler start(Duration interval, int capacity) {
        checkInterval(interval);
        SchedulerSnapshot.resetPeakPlatformThreads();
        return start(interval, capacity, SchedulerSnapshot::take);
    }

    /**
     * Samples {@code source} instead of this JVM, e.g. another JVM through
     * {@link SchedulerSnapshot#take(javax.management.MBeanServerConnection)}. Nothing is reset.
     * A snapshot the source fails to take ends sampling; {@link #stop()} still returns what was
     * taken until then.
     *
     * @throws IllegalArgumentException if {@code interval} is not positive or {@code capacity} is
     *                                  below 1
     */
    public static SchedulerSampler start(Duration interval, int capacity, Supplier<SchedulerSnapshot> source) {
        checkInterval(interval);
        Objects.requireNonNull(source, "source");
        if (capacity < 1) {
            throw new IllegalArgumentException("a sampler keeps at least 1 snapshot; got capacity " + capacity);
        }
        SchedulerSampler sampler = new SchedulerSampler(interval, capacity, source);
        sampler.record(source.get());
        sampler.thread.start();
        return sampler;
    }

    private static void checkInterval(Duration interval) {
        Objects.requireNonNull(interval, "interval");
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException(
                    "sampling interval must be positive, e.g. Duration.ofMillis(20); got " + interval);
        }
    }

    /** The interval between two snapshots. */
    public Duration interval() {
        return interval;
    }

    /**
     * The snapshots kept so far, oldest first, without stopping: the newest {@code capacity} of
     * them when a capacity was given.
     */
    public SchedulerSamples samples() {
        synchronized (samples) {
            return current();
        }
    }

    /**
     * Takes a snapshot now, keeps it with the others, and returns the samples kept: what a report
     * taken between two ticks wants, so that it ends at the moment it was asked for.
     *
     * @throws IllegalStateException if the sampler was stopped (use what {@link #stop()} returned)
     */
    public SchedulerSamples sampleNow() {
        SchedulerSnapshot s = source.get();
        synchronized (samples) {
            if (finished) {
                throw new IllegalStateException("the sampler is stopped; stop() returned its samples");
            }
            add(s);
            return current();
        }
    }

    /**
     * Why sampling ended before {@link #stop()}: the exception the source threw (a remote JVM that
     * went away), or empty.
     */
    public Optional<RuntimeException> failure() {
        synchronized (samples) {
            return Optional.ofNullable(failure);
        }
    }

    /**
     * Stops sampling, waits for the sampling thread to end, takes a last snapshot and returns
     * every snapshot kept, oldest first. Calling it again returns the same samples.
     */
    @Blocking
    public SchedulerSamples stop() {
        stopped.countDown();
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        synchronized (samples) {
            if (!finished) {
                finished = true;
                if (failure == null) {
                    try {
                        add(source.get());
                    } catch (RuntimeException e) {
                        failure = e; // kept for failure(); the samples taken so far stand
                    }
                }
            }
            return current();
        }
    }

    private SchedulerSamples current() { // guarded by samples
        return new SchedulerSamples(List.copyOf(samples), taken - samples.size());
    }

    private void loop() {
        try {
            while (!stopped.await(interval.toNanos(), TimeUnit.NANOSECONDS)) {
                record(source.get());
            }
        } catch (InterruptedException e) {
            // the sampler only ends through stop(); an interrupt ends sampling early, nothing else
        } catch (RuntimeException e) {
            synchronized (samples) {
                failure = e; // reported by failure(); stop() returns what was taken
            }
        }
    }

    private void record(SchedulerSnapshot s) {
        synchronized (samples) {
            add(s);
        }
    }

    private void add(SchedulerSnapshot s) { // guarded by samples
        if (samples.size() == capacity) {
            samples.removeFirst();
        }
        samples.addLast(s);
        taken++;
    }
}
