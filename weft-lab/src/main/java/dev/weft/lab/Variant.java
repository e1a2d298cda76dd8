package dev.weft.lab;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One measured variant of a scenario, as {@code results.json} carries it (see {@code doc/results.md}).
 *
 * @param name                the variant's name, as the scenario's issue fixes it (e.g. {@code no-lock})
 * @param unit                the unit of {@code value}, {@code limit} and {@code published} (e.g. {@code tasks/s})
 * @param value               the measured figure (the median where there were several rounds)
 * @param limit               the physical limit (a rate's ceiling) or floor (a time's) on this machine in the
 *                            same unit, or null when there is none
 * @param ratio               {@code value / limit}, or null without a limit
 * @param published           the figure the article published, or null; for a published range, its midpoint
 * @param publishedRange      a published range as {@code [low, high]}, or null when the article gave one figure
 * @param better              {@code higher} (rates) or {@code lower} (times): which way the figure improves
 * @param kind                {@code measured}, {@code extrapolated} (measured on a subset and scaled) or
 *                            {@code estimated} (computed, not run)
 * @param limitLabel          what the limit is, when it is not the physical limit (e.g. {@code explicit-arg in
 *                            this run}), or null
 * @param rounds              the figure of every measured round, in the order they ran; empty when measured once
 * @param peakPlatformThreads the peak number of platform threads in the JVM while the variant ran, or null
 * @param previous            the same variant in the run this one was compared with ({@code --compare}), or null
 * @param memory              what the measuring JVM's memory did while the variant ran (collector pauses, heap
 *                            peak, allocated bytes), or null where the scenario did not measure it
 * @param extra               everything else worth keeping: latencies, scheduler samples, sizes
 */
public record Variant(
        String name,
        String unit,
        double value,
        Double limit,
        Double ratio,
        Double published,
        List<Double> publishedRange,
        String better,
        String kind,
        String limitLabel,
        List<Double> rounds,
        Long peakPlatformThreads,
        Previous previous,
        Memory memory,
        Map<String, Object> extra) {

    /** A figure that improves upwards: a rate. */
    public static final String HIGHER = "higher";
    /** A figure that improves downwards: a time. */
    public static final String LOWER = "lower";
    /** A figure measured at the variant's full size. */
    public static final String MEASURED = "measured";
    /** A figure measured on a subset and scaled to the variant's size. */
    public static final String EXTRAPOLATED = "extrapolated";
    /** A figure computed, not run. */
    public static final String ESTIMATED = "estimated";

    private static final Pattern TIME_UNIT = Pattern.compile("^(ns|us|µs|ms|s|min|h)(\\b|/| ).*");

    public Variant {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(unit, "unit");
        extra = extra == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(extra));
        better = better == null ? betterFor(unit) : better;
        if (!HIGHER.equals(better) && !LOWER.equals(better)) {
            throw new IllegalArgumentException(
                    "variant " + name + ": better is \"higher\" or \"lower\"; got " + better);
        }
        kind = kind == null ? MEASURED : kind;
        if (!List.of(MEASURED, EXTRAPOLATED, ESTIMATED).contains(kind)) {
            throw new IllegalArgumentException(
                    "variant " + name + ": kind is measured, extrapolated or estimated; got " + kind);
        }
        if (publishedRange != null && (publishedRange.size() != 2 || publishedRange.get(0) > publishedRange.get(1))) {
            throw new IllegalArgumentException(
                    "variant " + name + ": a published range is [low, high]; got " + publishedRange);
        }
        publishedRange = publishedRange == null ? null : List.copyOf(publishedRange);
        rounds = rounds == null ? List.of() : List.copyOf(rounds);
        if (peakPlatformThreads == null) {
            peakPlatformThreads = peakFrom(extra);
        }
    }

    /** A variant without memory figures: the form of format version 2 before {@code memory}. */
    public Variant(
            String name,
            String unit,
            double value,
            Double limit,
            Double ratio,
            Double published,
            List<Double> publishedRange,
            String better,
            String kind,
            String limitLabel,
            List<Double> rounds,
            Long peakPlatformThreads,
            Previous previous,
            Map<String, Object> extra) {
        this(
                name,
                unit,
                value,
                limit,
                ratio,
                published,
                publishedRange,
                better,
                kind,
                limitLabel,
                rounds,
                peakPlatformThreads,
                previous,
                null,
                extra);
    }

    /** A measured variant with {@code ratio} computed from {@code value} and {@code limit}. */
    public static Variant of(
            String name, String unit, double value, Double limit, Double published, Map<String, Object> extra) {
        return new Variant(
                name,
                unit,
                value,
                limit,
                ratio(value, limit),
                published,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                extra);
    }

    /** This variant with {@code previous} set. */
    public Variant withPrevious(Previous previous) {
        return new Variant(
                name,
                unit,
                value,
                limit,
                ratio,
                published,
                publishedRange,
                better,
                kind,
                limitLabel,
                rounds,
                peakPlatformThreads,
                previous,
                memory,
                extra);
    }

    /**
     * The same variant in an earlier run, and how this run differs.
     *
     * @param value        its figure then
     * @param rounds       its per-round figures then (empty if it kept none)
     * @param change       {@code (value now - value then) / value then}
     * @param beyondSpread true when the two runs' per-round ranges do not overlap (a change beyond the run-to-run
     *                     spread), false when they do, null when either run kept no rounds
     */
    public record Previous(double value, List<Double> rounds, double change, Boolean beyondSpread) {
        public Previous {
            rounds = rounds == null ? List.of() : List.copyOf(rounds);
        }
    }

    /** {@code value / limit}, or null without a (non-zero) limit. */
    static Double ratio(double value, Double limit) {
        return limit == null || limit == 0 ? null : value / limit;
    }

    /** {@code lower} for a unit of time ({@code ns}, {@code ms}, {@code s}, {@code ns/switch}...), else {@code higher}. */
    public static String betterFor(String unit) {
        return TIME_UNIT.matcher(unit.strip()).matches() ? LOWER : HIGHER;
    }

    /** True when the figure is a time, so the limit is a floor. */
    public boolean lowerIsBetter() {
        return LOWER.equals(better);
    }

    private static Long peakFrom(Map<String, Object> extra) {
        Object direct = extra.get("peak_platform_threads");
        if (direct instanceof Number n) {
            return n.longValue();
        }
        if (extra.get("scheduler") instanceof Map<?, ?> s && s.get("peak_platform_threads") instanceof Number n) {
            return n.longValue();
        }
        return null;
    }
}
