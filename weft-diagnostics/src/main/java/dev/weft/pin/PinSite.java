package dev.weft.pin;

import dev.weft.pin.internal.PinAggregator;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Every pin seen at one place: the same pinned reason and the same top frames. A site is what a
 * developer fixes, so reports count and rank sites rather than list events.
 *
 * @param reason            the pinned reason shared by these pins (null before JDK 24)
 * @param blockingOperation what the first of them tried to do (null before JDK 24)
 * @param frames            the top frames that identify the site, innermost first
 * @param count             how many pins
 * @param total             their durations added up: carrier time lost
 * @param max               the longest one
 * @param firstSeen         when the first one began
 * @param lastSeen          when the last one began
 */
public record PinSite(
        String reason,
        String blockingOperation,
        List<PinFrame> frames,
        long count,
        Duration total,
        Duration max,
        Instant firstSeen,
        Instant lastSeen) {

    /** @throws NullPointerException if frames, a duration or an instant is null */
    public PinSite {
        frames = List.copyOf(frames);
        Objects.requireNonNull(total, "total");
        Objects.requireNonNull(max, "max");
        Objects.requireNonNull(firstSeen, "firstSeen");
        Objects.requireNonNull(lastSeen, "lastSeen");
    }

    /** The innermost frame outside the JDK, the line to look at first, or null when all are JDK frames. */
    public PinFrame firstApplicationFrame() {
        return frames.stream()
                .filter(f -> !PinAggregator.jdkClass(f.className()))
                .findFirst()
                .orElse(null);
    }

    /**
     * The site as data: {@code reason, blocking_operation, count, total_ms, max_ms, first_seen,
     * last_seen, frames}.
     */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("reason", reason);
        m.put("blocking_operation", blockingOperation);
        m.put("count", count);
        m.put("total_ms", PinReport.millis(total));
        m.put("max_ms", PinReport.millis(max));
        m.put("first_seen", firstSeen.toString());
        m.put("last_seen", lastSeen.toString());
        m.put("frames", frames.stream().map(PinFrame::toMap).toList());
        return m;
    }
}
