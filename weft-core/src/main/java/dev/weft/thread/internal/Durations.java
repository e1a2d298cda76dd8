package dev.weft.thread.internal;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people read them, the same way in every weft report, log line and message:
 * {@code 0 ms}, {@code 850 us}, {@code 12.5 ms}, {@code 850 ms}, {@code 3.2 s}, {@code 30 s},
 * {@code 12 min}.
 *
 * <p>Internal to weft: weft-core's module exports this package only to weft's own modules (it was
 * {@code dev.weft.thread.Durations}; doc/decisions/0107). Not an API; it may change in any
 * release.
 */
public final class Durations {

    private static final Pattern SIMPLE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)");

    private Durations() {}

    /**
     * A duration as people write it on a command line or in an option string: {@code 500ms},
     * {@code 30s}, {@code 1.5s}, {@code 5m}, {@code 1h}, or ISO-8601 ({@code PT30S}).
     *
     * @throws IllegalArgumentException naming the text and the forms accepted, if it is none of them
     */
    public static Duration parse(String text) {
        String v = text.strip().toLowerCase(Locale.ROOT);
        Matcher m = SIMPLE.matcher(v);
        if (m.matches()) {
            double n = Double.parseDouble(m.group(1));
            double millis = switch (m.group(2)) {
                case "ms" -> n;
                case "s" -> n * 1_000;
                case "m" -> n * 60_000;
                default -> n * 3_600_000;
            };
            return Duration.ofMillis(Math.round(millis));
        }
        try {
            return Duration.parse(text.strip().toUpperCase(Locale.ROOT));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not a duration; write e.g. 500ms, 30s, 5m, 1h or PT30S");
        }
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
