package dev.weft.lab;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One measured variant of a scenario, as {@code results.json} carries it.
 *
 * @param name      the variant's name, as the scenario's issue fixes it (e.g. {@code no-lock})
 * @param unit      the unit of {@code value}, {@code limit} and {@code published} (e.g. {@code tasks/s})
 * @param value     the measured figure (the median where there were several iterations)
 * @param limit     the physical limit on this machine in the same unit, or null when there is none
 * @param ratio     {@code value / limit}, or null without a limit
 * @param published the figure the article published, or null
 * @param extra     everything else worth keeping: iterations, latencies, thread counts
 */
public record Variant(String name, String unit, double value, Double limit, Double ratio, Double published,
                      Map<String, Object> extra) {

    public Variant {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(unit, "unit");
        extra = extra == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(extra));
    }

    /** A variant with {@code ratio} computed from {@code value} and {@code limit}. */
    public static Variant of(String name, String unit, double value, Double limit, Double published,
                             Map<String, Object> extra) {
        Double ratio = limit == null || limit == 0 ? null : value / limit;
        return new Variant(name, unit, value, limit, ratio, published, extra);
    }
}
