package dev.weft.pin;

import dev.weft.pin.internal.PinAggregator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;
import org.jetbrains.annotations.Blocking;

/**
 * The pins of one period, from {@link #start()} to {@link #end()}: what a test assertion checks.
 *
 * <p>A capture is exact, not a matter of timing. It is a JFR recording of its own (threshold 0
 * by default): {@link #end()} commits a marker event, stops the recording, which makes JFR write
 * out every event committed before, and reads the recording back; the marker must be in it, or
 * {@code end()} fails rather than report too little. A stopped recording needs no flush, so a
 * check takes milliseconds, not JFR's one-second streaming delay. Pins from every thread count,
 * so a test that shares a JVM with concurrently running tests may see theirs too; except the
 * JDK's own (a pin on a thread of the JDK's machinery, caused by the one-time initialization of
 * a JDK class, or a wait for a monitor inside a section the JVM pinned for itself, such as class
 * loading), which the report lists apart as {@link PinReport#notCounted()} (decision 0206).
 *
 * <pre>{@code
 * PinCapture capture = PinCapture.start();
 * codeUnderTest();
 * PinReport pins = capture.end();
 * assert pins.pins() == 0 : pins.toText();
 * }</pre>
 *
 * <p>Captures may overlap; each reports its own period. The recording is written to a temporary
 * file that {@code end()} deletes.
 *
 * <p>Memory consistency effects: actions of a pinned thread before its pin ends happen-before
 * {@link #end()} returns a report that counts it.
 */
public final class PinCapture {

    private final Recording recording;
    private final Duration threshold;
    private final int topFrames;
    private final Instant from;
    private PinReport report; // guarded by this
    private RuntimeException failure; // guarded by this

    private PinCapture(Duration threshold, int topFrames) {
        this.threshold = threshold;
        this.topFrames = topFrames;
        this.recording = new Recording();
        recording.setName("weft pin capture");
        recording.enable(PinEvent.JFR_EVENT).withThreshold(threshold).withStackTrace();
        recording.enable(Mark.class);
        recording.setToDisk(true);
        recording.start();
        this.from = recording.getStartTime(); // JFR's clock, the one its events carry
    }

    /**
     * Starts capturing every pin, however short.
     *
     * @throws IllegalStateException if JFR is not available (see {@link PinMonitor#isAvailable()})
     */
    public static PinCapture start() {
        return start(Duration.ZERO, PinAggregator.DEFAULT_TOP_FRAMES);
    }

    /**
     * Starts capturing pins at least {@code threshold} long, aggregated by the top
     * {@code topFrames} frames below the virtual-thread machinery, as a monitor aggregates them
     * (see {@link PinMonitor.Builder#topFrames(int)}; {@link #start()} takes 12).
     *
     * @throws IllegalArgumentException if {@code threshold} is negative or {@code topFrames} below 1
     * @throws IllegalStateException    if JFR is not available (see {@link PinMonitor#isAvailable()})
     */
    public static PinCapture start(Duration threshold, int topFrames) {
        Objects.requireNonNull(threshold, "threshold");
        if (threshold.isNegative()) {
            throw new IllegalArgumentException("threshold must be >= 0 (0 records every pin); got " + threshold);
        }
        if (topFrames < 1) {
            throw new IllegalArgumentException("topFrames must be >= 1; got " + topFrames);
        }
        if (!PinMonitor.isAvailable()) {
            throw new IllegalStateException("capturing pins needs JFR, which this JVM lacks; run on a full JDK 21+"
                    + " (or add jdk.jfr to the jlink image)");
        }
        return new PinCapture(threshold, topFrames);
    }

    /**
     * Ends the capture and returns its pins, by site. Calling it again returns the same report
     * (or throws the same exception).
     *
     * @throws IllegalStateException if the recording could not be read back, or the marker
     *                               committed just before stopping is missing from it
     */
    @Blocking
    public synchronized PinReport end() {
        if (report != null) {
            return report;
        }
        if (failure != null) {
            throw failure;
        }
        Path file = null;
        try {
            long mark = Mark.next();
            Mark.commit(mark);
            recording.stop();
            Instant to = recording.getStopTime();
            file = Files.createTempFile("weft-pin-capture-", ".jfr");
            recording.dump(file);
            report = read(file, mark, to);
            return report;
        } catch (IOException e) {
            failure = new UncheckedIOException(
                    "could not read back the pin capture's JFR recording: " + e.getMessage(), e);
            throw failure;
        } catch (RuntimeException e) {
            failure = e;
            throw e;
        } finally {
            recording.close();
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    // a temporary file left behind is not worth failing a check for; the OS cleans it
                }
            }
        }
    }

    private PinReport read(Path file, long mark, Instant to) throws IOException {
        PinAggregator pins = new PinAggregator(topFrames, PinAggregator.DEFAULT_MAX_SITES);
        List<UncountedPin> notCounted = new ArrayList<>();
        boolean[] marked = {false};
        try (RecordingFile in = new RecordingFile(file)) {
            pins.addAll(in, e -> {
                if (e.getEventType().getName().equals(Mark.NAME)) {
                    marked[0] |= e.getLong("id") == mark;
                    return false;
                }
                // The chunks may hold events recorded for other recordings: from before this
                // capture, at a lower threshold, or of types this one did not ask for.
                if (!e.getEventType().getName().equals(PinEvent.JFR_EVENT)
                        || e.getDuration().compareTo(threshold) < 0
                        || e.getEndTime().isBefore(from)) {
                    return false;
                }
                PinEvent pin = PinEvent.of(e);
                Optional<String> jdkOwn = PinAttribution.jdkOwn(pin);
                jdkOwn.ifPresent(why -> notCounted.add(new UncountedPin(pin, why)));
                return jdkOwn.isEmpty();
            });
        }
        if (!marked[0]) {
            throw new IllegalStateException("JFR's recording of this pin capture lacks the end marker it committed,"
                    + " so it may lack pins too; this is a JFR problem, please report it with the JDK version");
        }
        return pins.report(from, to, threshold, null).withNotCounted(notCounted);
    }
}
