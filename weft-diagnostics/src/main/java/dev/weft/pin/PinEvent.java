package dev.weft.pin;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;

/**
 * One time a virtual thread was pinned: it tried to park (sleep, wait for a lock, block on I/O)
 * but could not unmount from its carrier, so the carrier blocked with it. Built from a JFR
 * {@code jdk.VirtualThreadPinned} event.
 *
 * <p>{@code reason} and {@code blockingOperation} exist from JDK 24; on JDK 21-23 they are null
 * and the stack is the only clue. {@code thread} is often null: JFR does not always name a
 * short-lived virtual thread, which is why weft attributes pins by stack.
 *
 * @param start             when the pin began
 * @param duration          how long the carrier was held
 * @param reason            why the thread could not unmount (e.g. {@code VM call to
 *                          Foo.<clinit> on stack}, {@code Native frame or <clinit> on stack}), or
 *                          null before JDK 24
 * @param blockingOperation what it tried to do (e.g. {@code LockSupport.park}), or null before JDK 24
 * @param thread            the pinned virtual thread's name, or null when JFR did not record it
 * @param carrier           the carrier thread's name, or null when JFR did not record it
 * @param frames            the top of the stack, innermost frame first (empty without a stack)
 * @param truncated         whether JFR cut the stack short
 */
public record PinEvent(
        Instant start,
        Duration duration,
        String reason,
        String blockingOperation,
        String thread,
        String carrier,
        List<PinFrame> frames,
        boolean truncated) {

    /** The JFR event this is built from. */
    public static final String JFR_EVENT = "jdk.VirtualThreadPinned";

    /** @throws NullPointerException if start, duration or frames is null */
    public PinEvent {
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(duration, "duration");
        reason = PinFrame.normalize(reason);
        frames = List.copyOf(frames);
    }

    /**
     * The pin a {@code jdk.VirtualThreadPinned} event records, from a {@code RecordingStream},
     * a {@code RecordingFile} or a remote stream.
     *
     * @throws IllegalArgumentException if {@code event} is another kind of event
     */
    public static PinEvent of(RecordedEvent event) {
        if (!JFR_EVENT.equals(event.getEventType().getName())) {
            throw new IllegalArgumentException(
                    "not a " + JFR_EVENT + " event: " + event.getEventType().getName());
        }
        return new PinEvent(
                event.getStartTime(),
                event.getDuration(),
                string(event, "pinnedReason"),
                string(event, "blockingOperation"),
                threadName(event, "eventThread"),
                threadName(event, "carrierThread"),
                frames(event.getStackTrace()),
                event.getStackTrace() != null && event.getStackTrace().isTruncated());
    }

    /** When the carrier was released: {@code start + duration}. */
    public Instant end() {
        return start.plus(duration);
    }

    /** The pin as data: {@code start, duration_ms, reason, blocking_operation, thread, carrier, frames}. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("start", start.toString());
        m.put("duration_ms", PinReport.millis(duration));
        m.put("reason", reason);
        m.put("blocking_operation", blockingOperation);
        m.put("thread", thread);
        m.put("carrier", carrier);
        m.put("frames", frames.stream().map(PinFrame::toMap).toList());
        m.put("truncated", truncated);
        return m;
    }

    static List<PinFrame> frames(RecordedStackTrace stack) {
        if (stack == null) {
            return List.of();
        }
        List<PinFrame> frames = new ArrayList<>(stack.getFrames().size());
        for (RecordedFrame f : stack.getFrames()) {
            if (f.getMethod() == null || f.getMethod().getType() == null) {
                continue;
            }
            frames.add(new PinFrame(
                    f.getMethod().getType().getName(),
                    f.getMethod().getName(),
                    f.isJavaFrame() ? f.getLineNumber() : -1,
                    "Native".equals(f.getType())));
        }
        return frames;
    }

    static String string(RecordedEvent event, String field) {
        return event.hasField(field) ? event.getString(field) : null;
    }

    private static String threadName(RecordedEvent event, String field) {
        if (!event.hasField(field)) {
            return null;
        }
        RecordedThread t = event.getValue(field);
        if (t == null) {
            return null;
        }
        String name = t.getJavaName();
        return name == null || name.isEmpty() ? null : name;
    }
}
