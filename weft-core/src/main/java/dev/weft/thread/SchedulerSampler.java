package dev.weft.thread;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

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
 * <p>{@link #start} resets the JVM's peak platform-thread count, so the peak reported is the
 * peak of the sampled period (a peak between two samples is still seen: the JVM tracks it).
 */
public final class SchedulerSampler {

    private final Duration interval;
    private final List<SchedulerSnapshot> samples = new ArrayList<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Thread thread;
    private boolean finished; // guarded by samples

    private SchedulerSampler(Duration interval) {
        this.interval = interval;
        this.thread = Thread.ofPlatform().name("weft-scheduler-sampler").daemon(true).unstarted(this::loop);
    }

    /**
     * Resets the peak platform-thread count, takes a first snapshot and starts sampling every
     * {@code interval}.
     *
     * @throws IllegalArgumentException if {@code interval} is not positive
     */
    public static SchedulerSampler start(Duration interval) {
        Objects.requireNonNull(interval, "interval");
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("sampling interval must be positive, e.g. Duration.ofMillis(20); got " + interval);
        }
        SchedulerSnapshot.resetPeakPlatformThreads();
        SchedulerSampler sampler = new SchedulerSampler(interval);
        sampler.record();
        sampler.thread.start();
        return sampler;
    }

    /**
     * Stops sampling, waits for the sampling thread to end, takes a last snapshot and returns
     * every snapshot in order. Calling it again returns the same samples.
     */
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
                samples.add(SchedulerSnapshot.take());
                finished = true;
            }
            return new SchedulerSamples(samples);
        }
    }

    private void loop() {
        try {
            while (!stopped.await(interval.toNanos(), TimeUnit.NANOSECONDS)) {
                record();
            }
        } catch (InterruptedException e) {
            // the sampler only ends through stop(); an interrupt ends sampling early, nothing else
        }
    }

    private void record() {
        SchedulerSnapshot s = SchedulerSnapshot.take();
        synchronized (samples) {
            samples.add(s);
        }
    }
}
