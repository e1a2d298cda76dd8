package dev.weft.lab;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * One goal of a scenario and its verdict, as {@code results.json} carries it (see
 * {@code doc/results.md}).
 *
 * <p>A goal compares one measured figure with a target in a direction: {@code at_most} (the
 * figure must not exceed the target: times, slowdowns) or {@code at_least} (it must reach it:
 * rates, speed-ups). Where the scenario ran rounds, the figure is the median of the per-round
 * figures (for a comparison of two variants, the median of their paired per-round ratios), and
 * {@code perRound} keeps every one of them, so a reader can see their spread.
 *
 * <p>The verdict is decided on the {@link Confidence} interval of that median (decision 0804):
 * {@code met} when the whole interval is on the target's side, {@code not_met} when the whole
 * interval is on the wrong side, {@code inconclusive} (with {@code met} null) when it straddles the
 * target. A goal on one figure has the interval {@code [figure, figure]}.
 *
 * @param name      one sentence a reader understands, e.g. {@code weft-context within 1.10x of explicit-arg}
 * @param unit      the unit of {@code measured} and {@code target}: {@code x} for a ratio, or a figure's unit
 * @param measured  the figure judged (the median of {@code perRound} when there are rounds)
 * @param target    the target the figure is held to
 * @param direction {@code at_most} or {@code at_least}
 * @param verdict   {@code met}, {@code not_met}, {@code inconclusive}, or {@code not_judged} (smoke runs,
 *                  whose sizes are too small)
 * @param met       true or false, or null when inconclusive or not judged
 * @param perRound  the per-round figures (or paired ratios) the median was taken of; empty without rounds
 * @param spread    the lowest and highest of {@code perRound}, or null without rounds
 * @param interval  the confidence interval the verdict was decided on ({@code low = high = measured}
 *                  for a single figure), or null in a result written before it existed
 * @param roundsUsed how many rounds the verdict took: the size of {@code perRound}, or 1 for a single figure
 * @param roundsNeeded for an inconclusive goal, about how many rounds would decide it if more spread as
 *                  these do ({@link Confidence#roundsToDecide}); null when decided, not judged, on a
 *                  single figure, or where no estimate can be made (a median on the target)
 */
public record Goal(
        String name,
        String unit,
        double measured,
        double target,
        String direction,
        String verdict,
        Boolean met,
        List<Double> perRound,
        Spread spread,
        Confidence.Interval interval,
        Integer roundsUsed,
        Long roundsNeeded) {

    /** The figure must not exceed the target. */
    public static final String AT_MOST = "at_most";
    /** The figure must reach the target. */
    public static final String AT_LEAST = "at_least";
    /** The verdict of a goal that was met. */
    public static final String MET = "met";
    /** The verdict of a goal that was not met. */
    public static final String NOT_MET = "not_met";
    /** The verdict of a goal whose interval straddles its target: more rounds might decide it. */
    public static final String INCONCLUSIVE = "inconclusive";
    /** The verdict in a smoke run: its sizes are too small to judge. */
    public static final String NOT_JUDGED = "not_judged";

    /**
     * The lowest and highest per-round figure.
     *
     * @param low  the lowest
     * @param high the highest
     */
    public record Spread(double low, double high) {}

    public Goal {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(unit, "unit");
        if (!AT_MOST.equals(direction) && !AT_LEAST.equals(direction)) {
            throw new IllegalArgumentException("a goal's direction is at_most or at_least; got " + direction);
        }
        perRound = perRound == null ? List.of() : List.copyOf(perRound);
    }

    /**
     * Judges {@code measured} against {@code target}.
     *
     * @param judged false in smoke runs: the goal is recorded as {@code not_judged}
     */
    public static Goal judge(
            String name,
            String unit,
            double measured,
            double target,
            String direction,
            List<Double> perRound,
            boolean judged) {
        if (!Double.isFinite(measured)) {
            throw new IllegalArgumentException(
                    "goal \"" + name + "\" measured " + measured + "; a figure must be finite");
        }
        boolean rounds = perRound != null && !perRound.isEmpty();
        Confidence.Interval interval =
                rounds ? Confidence.median(perRound) : new Confidence.Interval(measured, measured, null);
        String verdict = judged ? decide(interval, target, direction) : NOT_JUDGED;
        Boolean met = MET.equals(verdict) ? Boolean.TRUE : NOT_MET.equals(verdict) ? Boolean.FALSE : null;
        Spread spread = !rounds
                ? null
                : new Spread(
                        perRound.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
                        perRound.stream().mapToDouble(Double::doubleValue).max().orElseThrow());
        return new Goal(
                name,
                unit,
                measured,
                target,
                direction,
                verdict,
                met,
                perRound,
                spread,
                interval,
                rounds ? perRound.size() : 1,
                INCONCLUSIVE.equals(verdict) && rounds ? boxed(Confidence.roundsToDecide(perRound, target)) : null);
    }

    private static Long boxed(OptionalLong n) {
        return n.isPresent() ? n.getAsLong() : null;
    }

    /**
     * {@code met} when the whole interval is on the target's side, {@code not_met} when it is wholly
     * on the wrong side, else {@code inconclusive}.
     */
    public static String decide(Confidence.Interval interval, double target, String direction) {
        boolean atMost = AT_MOST.equals(direction);
        if (atMost ? interval.high() <= target : interval.low() >= target) {
            return MET;
        }
        if (atMost ? interval.low() > target : interval.high() < target) {
            return NOT_MET;
        }
        return INCONCLUSIVE;
    }

    /**
     * True when a goal judged on these per-round figures would be inconclusive now, as
     * {@link #decide} says of their median's {@link Confidence} interval; no figure yet counts as
     * inconclusive. What every scenario that adds rounds while a goal is undecided asks.
     */
    public static boolean undecided(List<Double> perRound, double target, String direction) {
        return perRound.isEmpty() || INCONCLUSIVE.equals(decide(Confidence.median(perRound), target, direction));
    }

    /**
     * The verdict as a reader sees it: {@code met}, {@code NOT met}, {@code inconclusive} or
     * {@code not judged (smoke run)}.
     */
    public String verdictText() {
        return switch (verdict) {
            case MET -> "met";
            case NOT_MET -> "NOT met";
            case INCONCLUSIVE -> "inconclusive";
            default -> "not judged (smoke run)";
        };
    }

    /**
     * What a reader is told after an inconclusive verdict: {@code " (about N rounds at this
     * spread would decide it)"}, or {@code ""} without an estimate.
     */
    public String roundsNeededText() {
        if (roundsNeeded == null) {
            return "";
        }
        return String.format(
                Locale.ROOT,
                " (%s %,d rounds at this spread would decide it)",
                roundsNeeded >= Confidence.MOST_ROUNDS_ESTIMATED ? "at least" : "about",
                roundsNeeded);
    }

    /** True when the goal was judged and its interval straddles the target. */
    public boolean inconclusive() {
        return INCONCLUSIVE.equals(verdict);
    }

    /** True when the goal was judged and not met. */
    public boolean failed() {
        return Boolean.FALSE.equals(met);
    }
}
