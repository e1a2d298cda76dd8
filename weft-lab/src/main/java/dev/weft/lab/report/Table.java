package dev.weft.lab.report;

import dev.weft.lab.ScenarioResult;
import dev.weft.lab.Variant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A scenario's table, as text cells, shared by the console, Markdown and HTML reports:
 * variant, measured, published, limit, measured/limit, and peak platform threads where the
 * scenario recorded them.
 */
public record Table(List<String> header, List<List<String>> rows) {

    /** The table of {@code r}. */
    public static Table of(ScenarioResult r) {
        boolean threads = r.variants().stream().anyMatch(v -> peakPlatformThreads(v) != null);
        List<String> header = new ArrayList<>(List.of("variant", "measured", "published", "limit", "measured/limit"));
        if (threads) {
            header.add("peak platform threads");
        }
        List<List<String>> rows = new ArrayList<>();
        for (Variant v : r.variants()) {
            List<String> row = new ArrayList<>(List.of(v.name(), withUnit(v.value(), v.unit()),
                    withUnit(v.published(), v.unit()), withUnit(v.limit(), v.unit()), ratio(v.ratio())));
            if (threads) {
                Object peak = peakPlatformThreads(v);
                row.add(peak instanceof Number n ? String.format(Locale.ROOT, "%,d", n.longValue())
                        : peak == null ? "-" : peak.toString());
            }
            rows.add(row);
        }
        return new Table(header, rows);
    }

    /** A figure with its unit, or "-" for none. */
    public static String withUnit(Double value, String unit) {
        return value == null ? "-" : number(value) + " " + unit;
    }

    /** A figure with as many digits as it deserves: 98,532 / 412 / 41.2 / 4.12 / 0.412 / 0. */
    public static String number(double v) {
        double a = Math.abs(v);
        if (a >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (a >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (a == 0) {
            return "0";
        }
        if (a >= 1) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }

    /** A ratio with two decimals (three significant digits below 0.1), or "-". */
    public static String ratio(Double r) {
        if (r == null) {
            return "-";
        }
        return Math.abs(r) >= 0.1 ? String.format(Locale.ROOT, "%.2f", r) : String.format(Locale.ROOT, "%.3g", r);
    }

    private static Object peakPlatformThreads(Variant v) {
        return v.extra().get("scheduler") instanceof Map<?, ?> s ? s.get("peak_platform_threads") : null;
    }
}
