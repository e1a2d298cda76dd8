package dev.weft.pin;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * The stacks of the virtual threads that hold the carriers, taken while a starvation episode is
 * going on: once the canary has waited for the threshold, the detector's clock calls
 * {@link #dump()}, which writes a JSON thread dump ({@link ThreadDump}, which lists virtual
 * threads) and keeps the stacks of the virtual threads that were on a carrier. No thread of its
 * own: until decision 0856 one polled the canary every half period, 100 wake-ups a second at the
 * agent's 20 ms.
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
    private final SampleWindow samples = new SampleWindow(java.time.Duration.ofSeconds(10));
    private volatile boolean dumping;

    DumpStacks() throws IOException {
        // Fails here, not at the first episode, when the runtime has no jdk.management module.
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        this.folder = Files.createTempDirectory("weft-starvation-");
    }

    /** Takes the stacks of the virtual threads on a carrier now; called by one thread, the detector's clock. */
    void dump() {
        dumping = true;
        try {
            add(Instant.now(), mounted());
        } catch (IOException | RuntimeException failed) {
            // no stacks for this episode; it is still timed
        } finally {
            dumping = false;
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

    /** Deletes the dumps' folder; the detector calls it once its clock has ended. */
    @Override
    public void close() {
        try {
            Files.deleteIfExists(folder.resolve("threads.json"));
            Files.deleteIfExists(folder);
        } catch (IOException e) {
            // a temporary folder left behind; nothing else to do
        }
    }
}
