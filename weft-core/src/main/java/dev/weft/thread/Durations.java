package dev.weft.thread;

import java.time.Duration;
import java.util.Locale;

/**
 * Durations as people read them, the same way in every weft report, log line and message:
 * {@code 0 ms}, {@code 850 us}, {@code 12.5 ms}, {@code 850 ms}, {@code 3.2 s}, {@code 30 s},
 * {@code 12 min}.
 */
public final class Durations {

    private Durations() {
    }

    /**
     * {@code d} in the largest unit that keeps it readable: microseconds below a millisecond,
     * milliseconds below a second, seconds below ten minutes, whole minutes above; one decimal
     * where it says something ({@code 12.5 ms}, never {@code 12.0 ms}). Negative durations keep
     * their sign.
     *
     * @throws NullPointerException if {@code d} is null
     */
    public static String human(Duration d) {
        if (d.isNegative()) {
            return "-" + human(d.negated());
        }
        long nanos;
        try {
            nanos = d.toNanos();
        } catch (ArithmeticException tooLong) {
            return d.toMinutes() + " min";
        }
        if (nanos == 0) {
            return "0 ms";
        }
        if (nanos < 1_000_000) {
            return nanos / 1_000 + " us";
        }
        if (nanos < 1_000_000_000) {
            return oneDecimal(nanos / 1e6) + " ms";
        }
        if (nanos < 600_000_000_000L) {
            return oneDecimal(nanos / 1e9) + " s";
        }
        return d.toMinutes() + " min";
    }

    private static String oneDecimal(double v) {
        String s = String.format(Locale.ROOT, "%.1f", v);
        return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
    }
}
