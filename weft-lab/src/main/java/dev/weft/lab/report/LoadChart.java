package dev.weft.lab.report;

import dev.weft.lab.Variant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The chart of a scenario that drives its variants at several offered loads (variants named
 * {@code <variant>@<factor>x}, e.g. {@code weft-ring-admission@4x}, as {@code overload} names
 * them): one line per variant, its figure (goodput) against the offered load, with the limit
 * (capacity) drawn across and the ideal (everything offered is served, up to the limit) dashed.
 * The offered load is the factor times the variant's limit, in the variant's unit, when the
 * variant has a limit; else the factor itself. Nothing is drawn unless some variant was measured
 * at two loads or more.
 */
final class LoadChart {

    private static final Pattern AT_LOAD = Pattern.compile("(.+)@(\\d+(?:\\.\\d+)?)x");
    private static final String[] COLOURS = {"#4c78a8", "#f58518", "#54a24b", "#b279a2", "#72b7b2", "#9d755d"};
    private static final int WIDTH = 900;
    private static final int LEFT = 70;
    private static final int RIGHT = 230;
    private static final int TOP = 16;
    private static final int HEIGHT = 300;
    private static final int BOTTOM = 44;

    private LoadChart() {}

    /** One measured point of a variant: the load factor and the figure. */
    record Point(double factor, double value) {}

    /** A variant's points in order of load, with its limit (null if it has none). */
    record Series(String name, Double limit, List<Point> points) {}

    /**
     * The variants named {@code <name>@<factor>x} with the same unit, grouped by name, each
     * group's points in order of load; only series of two points or more.
     */
    static List<Series> series(List<Variant> variants) {
        Map<String, List<Point>> points = new LinkedHashMap<>();
        Map<String, Double> limits = new LinkedHashMap<>();
        for (Variant v : variants) {
            Matcher m = AT_LOAD.matcher(v.name());
            if (m.matches() && Variant.MEASURED.equals(v.kind())) {
                points.computeIfAbsent(m.group(1), k -> new ArrayList<>())
                        .add(new Point(Double.parseDouble(m.group(2)), v.value()));
                if (v.limit() != null) {
                    limits.putIfAbsent(m.group(1), v.limit());
                }
            }
        }
        List<Series> out = new ArrayList<>();
        points.forEach((name, ps) -> {
            if (ps.size() >= 2) {
                List<Point> sorted = new ArrayList<>(ps);
                sorted.sort((a, b) -> Double.compare(a.factor(), b.factor()));
                out.add(new Series(name, limits.get(name), List.copyOf(sorted)));
            }
        });
        return out;
    }

    /** The chart of {@code variants} sharing {@code unit}, or "" when no variant ran at two loads. */
    static String render(String unit, List<Variant> variants) {
        List<Series> all = series(variants);
        if (all.isEmpty()) {
            return "";
        }
        // One limit for the chart when the series share it (one capacity), else offered loads as factors.
        Double limit = all.get(0).limit();
        boolean oneLimit = limit != null && all.stream().allMatch(s -> limit.equals(s.limit()));
        double maxX = 0;
        double maxY = oneLimit ? limit : 0;
        for (Series s : all) {
            for (Point p : s.points()) {
                maxX = Math.max(maxX, offered(p, oneLimit ? limit : null));
                maxY = Math.max(maxY, p.value());
            }
        }
        double hiX = nice(maxX * 1.05);
        double hiY = nice(maxY * 1.1);
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        String xUnit = oneLimit ? unit + " offered" : "offered load (x the limit)";
        String title =
                unit + " against the offered load (" + (oneLimit ? unit : "x the limit") + "), linear scales from 0";
        StringBuilder s = new StringBuilder();
        s.append("<p class=\"chart-title\">").append(HtmlReport.esc(title)).append("</p>\n");
        s.append(String.format(
                Locale.ROOT,
                "<svg class=\"chart\" data-kind=\"load\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"%s\">%n",
                WIDTH,
                HEIGHT,
                HtmlReport.esc(title)));
        for (int i = 0; i <= 5; i++) {
            double x = LEFT + plotW * i / 5.0;
            double y = TOP + plotH - plotH * i / 5.0;
            s.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e5e5e5\"/>",
                    x,
                    TOP,
                    x,
                    TOP + plotH));
            s.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#666\">%s</text>",
                    x,
                    TOP + plotH + 16,
                    HtmlReport.esc(HtmlReport.tick(hiX * i / 5))));
            s.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>",
                    LEFT,
                    y,
                    LEFT + plotW,
                    y));
            s.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\" fill=\"#666\">%s</text>%n",
                    LEFT - 6,
                    y,
                    HtmlReport.esc(HtmlReport.tick(hiY * i / 5))));
        }
        s.append(String.format(
                Locale.ROOT,
                "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333\">%s</text>%n",
                LEFT + plotW / 2.0,
                HEIGHT - 6,
                HtmlReport.esc(xUnit)));
        if (oneLimit) {
            double y = TOP + plotH - plotH * limit / hiY;
            // the ideal: every offered request served, up to the limit
            double knee = LEFT + plotW * Math.min(1, limit / hiX);
            s.append(String.format(
                    Locale.ROOT,
                    "<polyline class=\"ideal\" points=\"%d,%d %.1f,%.1f %d,%.1f\" fill=\"none\" stroke=\"#999\" stroke-width=\"1.5\" stroke-dasharray=\"5,4\"><title>ideal: all of the offered load, up to the limit</title></polyline>",
                    LEFT,
                    TOP + plotH,
                    knee,
                    y,
                    LEFT + plotW,
                    y));
            s.append(String.format(
                    Locale.ROOT,
                    "<line class=\"limit\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#111\" stroke-width=\"2.5\"><title>limit %s</title></line>%n",
                    LEFT,
                    y,
                    LEFT + plotW,
                    y,
                    HtmlReport.esc(Table.withUnit(limit, unit))));
        }
        int legendY = TOP + 10;
        for (int i = 0; i < all.size(); i++) {
            Series series = all.get(i);
            String colour = COLOURS[i % COLOURS.length];
            StringBuilder pts = new StringBuilder();
            StringBuilder marks = new StringBuilder();
            for (Point p : series.points()) {
                double x = LEFT + plotW * offered(p, oneLimit ? limit : null) / hiX;
                double y = TOP + plotH - plotH * p.value() / hiY;
                pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
                marks.append(String.format(
                        Locale.ROOT,
                        "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>%s@%sx: %s</title></circle>",
                        x,
                        y,
                        colour,
                        HtmlReport.esc(series.name()),
                        HtmlReport.tick(p.factor()),
                        HtmlReport.esc(Table.withUnit(p.value(), unit))));
            }
            s.append(String.format(
                    Locale.ROOT,
                    "<polyline class=\"series\" points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"><title>%s</title></polyline>",
                    pts.toString().trim(),
                    colour,
                    HtmlReport.esc(series.name())));
            s.append(marks);
            s.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>%n",
                    WIDTH - RIGHT + 14,
                    legendY + 22 * i - 10,
                    colour,
                    WIDTH - RIGHT + 31,
                    legendY + 22 * i,
                    HtmlReport.esc(series.name())));
        }
        if (oneLimit) {
            int y = legendY + 22 * all.size();
            s.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#111\" stroke-width=\"2.5\"/><text x=\"%d\" y=\"%d\">limit</text>",
                    WIDTH - RIGHT + 14,
                    y - 4,
                    WIDTH - RIGHT + 26,
                    y - 4,
                    WIDTH - RIGHT + 31,
                    y));
            s.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\" stroke-width=\"1.5\" stroke-dasharray=\"5,4\"/><text x=\"%d\" y=\"%d\">ideal</text>%n",
                    WIDTH - RIGHT + 14,
                    y + 18,
                    WIDTH - RIGHT + 26,
                    y + 18,
                    WIDTH - RIGHT + 31,
                    y + 22));
        }
        return s.append("</svg>\n").toString();
    }

    private static double offered(Point p, Double limit) {
        return limit == null ? p.factor() : p.factor() * limit;
    }

    private static double nice(double v) {
        return v <= 0 ? 1 : HtmlReport.niceCeiling(v);
    }
}
