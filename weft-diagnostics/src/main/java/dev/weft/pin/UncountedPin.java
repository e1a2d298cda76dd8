package dev.weft.pin;

import dev.weft.pin.internal.PinAggregator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A pin a check saw but did not count, because it was the JDK's own and not the code's under
 * test: a pin on a thread of the JDK's machinery (such as JDK 25's socket pollers), or one caused
 * by the one-time initialization of a JDK class the code only triggered (decision 0206). Reports
 * list these apart, so nothing is hidden.
 *
 * @param pin the pin
 * @param why why it was not counted, naming the thread
 */
public record UncountedPin(PinEvent pin, String why) {

    /** @throws NullPointerException if either is null */
    public UncountedPin {
        Objects.requireNonNull(pin, "pin");
        Objects.requireNonNull(why, "why");
    }

    /** The pin as data: {@code thread, why, reason, duration_ms, frames} (the top frames). */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("thread", pin.thread());
        m.put("why", why);
        m.put("reason", pin.reason());
        m.put("duration_ms", PinReport.millis(pin.duration()));
        m.put(
                "frames",
                PinAggregator.siteFrames(pin.frames(), PinAggregator.DEFAULT_TOP_FRAMES).stream()
                        .map(PinFrame::toMap)
                        .toList());
        return m;
    }
}
