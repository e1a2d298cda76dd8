package dev.weft.pin;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Predicate;
import jdk.jfr.FlightRecorder;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingStream;

/**
 * The JFR side of a {@link StarvationDetector}: execution samples of virtual threads (what ran on
 * the carriers), kept for a few seconds so that a late canary can be matched with what held the
 * carriers while it waited. Only the samples taken while the canary waited are kept ({@code wanted},
 * the detector's): JFR delivers a sample up to a second after it was taken, by when the canary's
 * wait has become a pending episode or is still going on. Keeping every sample of virtual threads
 * (as until decision 0856) cost a busy JVM a collector busier by 6 ms of CPU a second, for samples
 * no episode read. Kept apart so the detector loads without the {@code jdk.jfr} module.
 */
final class StarvationSampler implements StackSource {

    private static final String EXECUTION_SAMPLE = "jdk.ExecutionSample";
    static final String CANARY = "weft-starvation-canary";
    private static final Duration KEEP = Duration.ofSeconds(10);

    private final RecordingStream stream;
    private final SampleWindow samples = new SampleWindow(KEEP);
    private volatile Instant flushedUpTo = Instant.EPOCH;

    private final Predicate<Instant> wanted;

    /**
     * @param period how often JFR samples the running threads
     * @param wanted whether a sample taken at an instant lies in a wait of the canary
     */
    StarvationSampler(Duration period, Predicate<Instant> wanted) {
        if (!FlightRecorder.isAvailable()) {
            throw new IllegalStateException("JFR is not available in this JVM");
        }
        this.wanted = wanted;
        stream = new RecordingStream();
        stream.enable(EXECUTION_SAMPLE).withPeriod(period);
        stream.onEvent(EXECUTION_SAMPLE, this::sampled);
        stream.onFlush(() -> flushedUpTo = Instant.now().minusMillis(50));
        stream.setMaxAge(Duration.ofSeconds(5));
        Thread t = Thread.ofPlatform()
                .name("weft-starvation-sampler")
                .daemon(true)
                .unstarted(() -> {
                    try {
                        stream.start();
                    } catch (RuntimeException | Error ended) {
                        // closed, or JFR failed: the detector still times its canary
                    }
                });
        t.start();
    }

    private void sampled(RecordedEvent e) {
        Instant at = e.getStartTime();
        if (!wanted.test(at)) {
            return;
        }
        RecordedThread t = e.getThread("sampledThread");
        // the canary itself, sampled as it finally runs, held no carrier while it waited
        if (t == null || !t.isVirtual() || e.getStackTrace() == null || CANARY.equals(t.getJavaName())) {
            return;
        }
        samples.add(new SampleWindow.Sample(at, PinEvent.frames(e.getStackTrace())));
    }

    /** Whether JFR has delivered every sample taken before {@code t}. */
    @Override
    public boolean deliveredUpTo(Instant t) {
        return !flushedUpTo.isBefore(t);
    }

    /** The samples of virtual threads taken in {@code [from, to]}. */
    @Override
    public List<SampleWindow.Sample> between(Instant from, Instant to) {
        return samples.between(from, to);
    }

    @Override
    public void close() {
        stream.close();
    }
}
