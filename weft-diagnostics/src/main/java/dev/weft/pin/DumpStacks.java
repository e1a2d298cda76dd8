package dev.weft.pin;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The stacks of the virtual threads that hold the carriers, taken while a starvation episode is
 * going on: a platform thread watches the canary and, once it is overdue by the threshold, writes
 * a JSON thread dump ({@link ThreadDump}, which lists virtual threads) and keeps the stacks of the virtual threads that were on a carrier.
 *
 * <p>For JDK 21-23, where JFR takes no execution samples of virtual threads: a dump costs
 * hundreds of milliseconds of one core (measured here: 140-600 ms with a few hundred threads), so
 * at most one is taken per episode, and none while nothing starves. Kept apart so the detector
 * loads without the {@code jdk.management} module.
 *
 * <p>On a JDK 21 dump, a virtual thread on a carrier has a stack that ends in
 * {@code VirtualThread.run} and does not start at the scheduler's park or yield (an unmounted one
 * starts at {@code VirtualThread.park}/{@code parkNanos}; one queued to run has an empty stack).
 * One pinned in {@code Object.wait} or a {@code synchronized} block counts as on a carrier, as it is.
 */
final class DumpStacks implements StackSource {

    private final Path folder;
    private final LongSupplier overdueSince;
    private final long threshold;
    private final long period;
    private final SampleWindow samples = new SampleWindow(java.time.Duration.ofSeconds(10));
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean dumping;

    /**
     * @param overdueSince the {@link System#nanoTime()} at which the canary became due and has not
     *                     run since, or {@link Long#MAX_VALUE} when it is not waiting
     */
    DumpStacks(LongSupplier overdueSince, long thresholdNanos, long periodNanos) throws IOException {
        // Fails here, not at the first episode, when the runtime has no jdk.management module.
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        this.folder = Files.createTempDirectory("weft-starvation-");
        this.overdueSince = overdueSince;
        this.threshold = thresholdNanos;
        this.period = periodNanos;
        this.thread =
                Thread.ofPlatform().name("weft-starvation-stacks").daemon(true).start(this::watch);
    }

    private void watch() {
        long dumpedFor = Long.MIN_VALUE;
        while (running) {
            LockSupport.parkNanos(this, Math.max(1_000_000L, period / 2));
            long due = overdueSince.getAsLong();
            if (due == Long.MAX_VALUE || due == dumpedFor || System.nanoTime() - due < threshold || !running) {
                continue;
            }
            dumpedFor = due;
            dumping = true;
            try {
                add(Instant.now(), mounted());
            } catch (IOException | RuntimeException failed) {
                // no stacks for this episode; it is still timed
            } finally {
                dumping = false;
            }
        }
    }

    /** The stacks of the virtual threads on a carrier now, innermost frame first. */
    private List<List<PinFrame>> mounted() throws IOException {
        Path file = folder.resolve("threads.json");
        try {
            return ThreadDump.write(file).onCarrier();
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private void add(Instant at, List<List<PinFrame>> stacks) {
        for (List<PinFrame> frames : stacks) {
            samples.add(new SampleWindow.Sample(at, frames));
        }
    }

    /** Not while a dump is being taken (the canary may wake before it is done). */
    @Override
    public boolean deliveredUpTo(Instant t) {
        return !dumping;
    }

    @Override
    public List<SampleWindow.Sample> between(Instant from, Instant to) {
        return samples.between(from, to);
    }

    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(java.time.Duration.ofSeconds(5));
            Files.deleteIfExists(folder.resolve("threads.json"));
            Files.deleteIfExists(folder);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // a temporary folder left behind; nothing else to do
        }
    }
}
