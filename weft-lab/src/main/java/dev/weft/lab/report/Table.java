package dev.weft.lab.report;

import dev.weft.lab.Goal;
import dev.weft.lab.LabResult;
import dev.weft.lab.ScenarioResult;
import dev.weft.lab.Variant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A scenario's table, as text cells, shared by the console, Markdown and HTML reports:
 * variant, measured, published, limit, measured/limit, and peak platform threads where the
 * scenario recorded them.
 */
public record Table(List<String> header, List<List<String>> rows) {

    /** The header of a ratio column: measured against the limit (a rate's ceiling, a time's floor). */
    public static final String RATIO = "measured vs limit";

    /** The table of {@code r}: one row per variant. */
    public static Table of(ScenarioResult r) {
        boolean threads = r.variants().stream().anyMatch(v -> v.peakPlatformThreads() != null);
        boolean compared = r.variants().stream().anyMatch(v -> v.previous() != null);
        // Without any limit (switch), the limit and ratio columns would be dashes only: left out.
        boolean limits = r.variants().stream().anyMatch(v -> v.limit() != null);
        List<String> header = new ArrayList<>(
                limits
                        ? List.of("variant", "measured", "published", "limit", RATIO)
                        : List.of("variant", "measured", "published"));
        if (threads) {
            header.add("peak platform threads");
        }
        if (compared) {
            header.add("previous run");
            header.add("change");
        }
        List<List<String>> rows = new ArrayList<>();
        for (Variant v : r.variants()) {
            List<String> row = new ArrayList<>(
                    limits
                            ? List.of(v.name(), measured(v), published(v), limit(v), ratio(v))
                            : List.of(v.name(), measured(v), published(v)));
            if (threads) {
                row.add(
                        v.peakPlatformThreads() == null
                                ? "-"
                                : String.format(Locale.ROOT, "%,d", v.peakPlatformThreads()));
            }
            if (compared) {
                Comparison.Change c = Comparison.Change.of(v);
                row.add(c == null ? "-" : withUnit(c.previous(), v.unit()));
                row.add(c == null ? "-" : c.text());
            }
            rows.add(row);
        }
        return new Table(header, rows);
    }

    /** The verdict table of a run: one row per goal of every scenario. */
    public static Table goals(LabResult lab) {
        List<List<String>> rows = new ArrayList<>();
        for (LabResult.ScenarioGoal sg : lab.goals()) {
            Goal g = sg.goal();
            rows.add(List.of(
                    sg.scenario().name() + jdkSuffix(sg.scenario(), lab),
                    g.name(),
                    goalMeasured(g),
                    goalInterval(g),
                    (Goal.AT_MOST.equals(g.direction()) ? "<= " : ">= ") + target(g.target(), g.unit()),
                    g.verdictText()));
        }
        return new Table(List.of("scenario", "goal", "measured", "interval", "target", "verdict"), rows);
    }

    /**
     * The interval a goal was decided on, with its level: "1.020x to 1.150x (96.9%)"; "one figure"
     * for a goal on a single figure; "-" for a result written before goals had intervals.
     */
    public static String goalInterval(Goal g) {
        if (g.interval() == null) {
            return "-";
        }
        if (g.interval().level() == null) {
            return "one figure";
        }
        return goalFigure(g.interval().low(), g.unit()) + " to "
                + goalFigure(g.interval().high(), g.unit())
                + String.format(Locale.ROOT, " (%s%%)", trim(100 * g.interval().level()));
    }

    /** 95, 96.9, 93.75: a percentage with the digits it needs, at most two. */
    private static String trim(double percent) {
        String s = String.format(Locale.ROOT, "%.2f", percent);
        return s.replaceAll("\\.?0+$", "");
    }

    /** " (JDK 21)" when the scenario ran on another JDK than most of the run, else "". */
    static String jdkSuffix(ScenarioResult s, LabResult lab) {
        if (s.jdkMajor() == null) {
            return "";
        }
        long sameName =
                lab.scenarios().stream().filter(o -> o.name().equals(s.name())).count();
        return sameName > 1 ? " (JDK " + s.jdkMajor() + ")" : "";
    }

    /** A goal's figure, with the median's provenance and the spread of its rounds. */
    public static String goalMeasured(Goal g) {
        String figure = goalFigure(g.measured(), g.unit());
        if (g.spread() == null) {
            return figure;
        }
        return figure + " (median of " + g.perRound().size() + " rounds, "
                + goalFigure(g.spread().low(), g.unit()) + " to "
                + goalFigure(g.spread().high(), g.unit()) + ")";
    }

    /** A target as the issue states it: 1.10x, 5x, 97%, 1.3 s (no digits it did not give). */
    static String target(double v, String unit) {
        String n = v == Math.rint(v)
                ? String.format(Locale.ROOT, "%,.0f", v)
                : Math.abs(v) < 10 ? String.format(Locale.ROOT, "%.2f", v) : number(v);
        return "x".equals(unit) ? n + "x" : "%".equals(unit) ? n + "%" : n + " " + unit;
    }

    /** A goal's figure: 1.107x, 96.0%, 1.07 s. */
    static String goalFigure(double v, String unit) {
        if ("x".equals(unit)) {
            return (Math.abs(v) < 10 ? String.format(Locale.ROOT, "%.3f", v) : number(v)) + "x";
        }
        if ("%".equals(unit)) {
            return String.format(Locale.ROOT, "%.1f%%", v);
        }
        return number(v) + " " + unit;
    }

    /** The measured cell: the figure, marked when it is not a plain measurement. */
    static String measured(Variant v) {
        String s = withUnit(v.value(), v.unit());
        return Variant.MEASURED.equals(v.kind()) ? s : s + " (" + v.kind() + ")";
    }

    /** The published cell: a figure, or a range as the article gave it. */
    static String published(Variant v) {
        if (v.publishedRange() != null) {
            return number(v.publishedRange().get(0)) + "-"
                    + number(v.publishedRange().get(1)) + " " + v.unit();
        }
        return withUnit(v.published(), v.unit());
    }

    /** The limit cell, with what the limit is when it is not the physical one. */
    static String limit(Variant v) {
        String s = withUnit(v.limit(), v.unit());
        return v.limit() != null && v.limitLabel() != null ? s + " (" + v.limitLabel() + ")" : s;
    }

    /**
     * The ratio, worded one way everywhere: "0.96x of the limit, higher is better" for a rate,
     * "1.07x the floor, lower is better" for a time; "-" without a limit.
     */
    public static String ratio(Variant v) {
        if (v.ratio() == null) {
            return "-";
        }
        return v.lowerIsBetter()
                ? ratio(v.ratio()) + "x the floor, lower is better"
                : ratio(v.ratio()) + "x of the limit, higher is better";
    }

    /** A figure with its unit, or "-" for none. */
    public static String withUnit(Double value, String unit) {
        return value == null ? "-" : number(value) + " " + unit;
    }

    /**
     * A figure with as many digits as it deserves: 98,532 / 412 / 41.2 / 4.12 / 0.412 / 0, and a
     * whole number without decimals (a count: 22 episodes, not 22.0).
     */
    public static String number(double v) {
        double a = Math.abs(v);
        if (a >= 1000 || (v == Math.rint(v) && a < 1e15)) {
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
}
