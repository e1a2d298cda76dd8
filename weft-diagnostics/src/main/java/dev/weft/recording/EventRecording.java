package dev.weft.recording;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;
import org.jetbrains.annotations.Blocking;

/**
 * A JFR recording of the named events of this JVM, each delivered to a callback on JFR's own
 * thread while the recording runs. {@link #stop()} returns once every event committed before it
 * was delivered, so what the callback collected is complete when it returns.
 *
 * <pre>{@code
 * Queue<Instant> starts = new ConcurrentLinkedQueue<>();
 * try (EventRecording r = EventRecording.start(e -> starts.add(e.getStartTime()), "jdk.VirtualThreadStart")) {
 *     workload();
 *     r.stop();                       // every start of the workload has been delivered
 * }
 * }</pre>
 *
 * <p>Events are recorded at threshold 0 (however short) and without stack traces unless
 * {@link #start(Duration, boolean, Consumer, String...)} says otherwise. The callback must not
 * block for long: JFR delivers events one after another on one thread.
 */
public final class EventRecording implements AutoCloseable {

    private final RecordingStream stream;

    private EventRecording(RecordingStream stream) {
        this.stream = stream;
    }

    /**
     * Starts recording the named events (e.g. {@code "jdk.VirtualThreadStart"}), every one however
     * short, without stack traces.
     *
     * @throws IllegalArgumentException if no event is named, or a name is blank
     * @throws IllegalStateException    if this JVM has no JFR
     */
    public static EventRecording start(Consumer<RecordedEvent> onEvent, String... events) {
        return start(Duration.ZERO, false, onEvent, events);
    }

    /**
     * Starts recording the named events that last at least {@code threshold}, with their stack
     * traces when {@code stackTraces}.
     *
     * @throws IllegalArgumentException if {@code threshold} is negative, no event is named, or a
     *                                  name is blank
     * @throws IllegalStateException    if this JVM has no JFR
     */
    public static EventRecording start(
            Duration threshold, boolean stackTraces, Consumer<RecordedEvent> onEvent, String... events) {
        Objects.requireNonNull(threshold, "threshold");
        Objects.requireNonNull(onEvent, "onEvent");
        if (threshold.isNegative()) {
            throw new IllegalArgumentException("threshold must be >= 0 (0 records every event); got " + threshold);
        }
        if (events.length == 0) {
            throw new IllegalArgumentException("name at least one JFR event, e.g. \"jdk.VirtualThreadStart\"");
        }
        for (String name : List.of(events)) {
            if (name.isBlank()) {
                throw new IllegalArgumentException(
                        "a JFR event name is blank; name events like \"jdk.VirtualThreadPinned\"");
            }
        }
        RecordingStream stream;
        try {
            stream = new RecordingStream();
        } catch (IllegalStateException | SecurityException | NoClassDefFoundError e) {
            throw new IllegalStateException(
                    "recording JFR events needs JFR, which this JVM lacks or refuses (" + e
                            + "); run on a full JDK 21+ (or add jdk.jfr to the jlink image)",
                    e);
        }
        for (String name : events) {
            var settings = stream.enable(name).withThreshold(threshold);
            if (stackTraces) {
                settings.withStackTrace();
            } else {
                settings.withoutStackTrace();
            }
            stream.onEvent(name, onEvent);
        }
        stream.startAsync();
        return new EventRecording(stream);
    }

    /**
     * Stops recording and returns once every event recorded until now has been given to the
     * callback. Calling it again does nothing.
     */
    @Blocking
    public void stop() {
        try {
            stream.stop();
        } catch (IllegalStateException alreadyStopped) {
            // stopped before, or closed: nothing more will be delivered
        }
    }

    /** Stops recording without waiting for events not delivered yet, and frees the recording. */
    @Override
    public void close() {
        stream.close();
    }
}
