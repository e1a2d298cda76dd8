package dev.weft.lab.report;

import dev.weft.lab.Goal;
import dev.weft.lab.LabResult;
import dev.weft.lab.ScenarioResult;
import dev.weft.lab.Variant;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code report.html}: self-contained (inline CSS and SVG, no scripts, nothing fetched). It opens
 * with the verdict: one table of every goal of every scenario, met or not in colour and in words.
 * Then one section per scenario: its charts (the variants against their limits; measured bars
 * solid, extrapolated or estimated ones hatched; a second chart of peak platform threads where
 * the scenario recorded them; where variants ran at several offered loads, their figure against
 * the load: {@link LoadChart}) and its table.
 */
public final class HtmlReport {

    private static final int WIDTH = 900;
    /** Room for the figures' own column at the right. */
    private static final int FIGURES = 110;

    private static final int ROW = 30;
    private static final int TOP = 34;
    private static final int AXIS = 28;
    /** Figures spread wider than this share a logarithmic axis; closer ones a linear axis from 0. */
    private static final double LOG_SPREAD = 30;

    private static final Pattern URL = Pattern.compile("https?://[^\\s<>\"()]+[^\\s<>\"().,;:]");

    private HtmlReport() {}

    /** Writes the report of {@code lab} to {@code file}. */
    public static void write(Path file, LabResult lab) throws IOException {
        Files.writeString(file, render(lab));
    }

    /** The report of {@code lab} as one HTML page. */
    public static String render(LabResult lab) {
        StringBuilder s = new StringBuilder();
        s.append("""
                <!DOCTYPE html>
                <html lang="en"><head><meta charset="utf-8"><title>weft lab</title>
                <style>
                body{font:15px/1.45 system-ui,sans-serif;max-width:940px;margin:2em auto;padding:0 1em;color:#1d1d1f}
                h1{margin-bottom:.2em} h2{margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
                h2 .missed{color:#b00020;font-size:.8em}
                table{border-collapse:collapse;margin:.8em 0} th,td{padding:.25em .6em;border-bottom:1px solid #eee;vertical-align:top}
                td.num,th.num{text-align:right} td.fig{white-space:nowrap} th{background:#f6f6f6;text-align:left}
                td.met{background:#e3f4e6;color:#14642a;font-weight:600;white-space:nowrap}
                td.not-met{background:#fde2e4;color:#b00020;font-weight:700;white-space:nowrap}
                td.not-judged{color:#666;white-space:nowrap}
                p.busy{color:#7a5b00;font-weight:600}
                td.inconclusive{background:#fff6d6;color:#7a5b00;font-weight:600;white-space:nowrap}
                .meta{color:#555} .failed{color:#b00020;font-weight:600} pre{background:#f6f6f6;padding:.8em;overflow:auto}
                .verdict{border:2px solid #ccc;border-radius:6px;padding:.2em 1em;margin:1em 0} .verdict h2{margin-top:.5em}
                .spread{display:block;color:#666;font-size:.85em;white-space:normal}
                .verdict.bad{border-color:#b00020} .verdict.good{border-color:#2e7d32}
                svg{display:block;margin:.6em 0} svg text{font:12px system-ui,sans-serif}
                .chart-title{font-weight:600;margin:1em 0 0}
                </style></head><body>
                <svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>
                <pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
                <rect width="6" height="6" fill="#fff"/><line x1="0" y1="0" x2="0" y2="6" stroke="#4c78a8" stroke-width="3"/></pattern>
                </defs></svg>
                <h1>weft lab</h1>
                """);
        s.append("<p class=\"meta\">JDK ")
                .append(esc(lab.jdk()))
                .append(", ")
                .append(lab.cores())
                .append(" cores, ")
                .append(esc(lab.mode()))
                .append(" mode, started ")
                .append(esc(lab.started()))
                .append(lab.seconds() == null ? "" : String.format(Locale.ROOT, ", %.0f s in all", lab.seconds()))
                .append(".</p>\n");
        verdict(s, lab);
        s.append(
                        "<p class=\"meta\">Every figure was measured on this machine in this run. In the charts, a solid bar is ")
                .append(
                        "a measured figure and a hatched bar one extrapolated or estimated (its label says which); a black ")
                .append(
                        "line marks the limit of each variant here (for a rate its ceiling, for a time its floor); a red ")
                .append("diamond marks what the article published, a red outlined span a published range.</p>\n");
        if (lab.comparedWith() != null) {
            s.append("<p class=\"meta\">Compared with the run in <code>")
                    .append(esc(lab.comparedWith()))
                    .append("</code>: a change is flagged when the two runs' per-round ranges do not overlap.</p>\n");
        }
        for (ScenarioResult r : lab.scenarios()) {
            section(s, r, lab);
        }
        return s.append("</body></html>\n").toString();
    }

    private static void verdict(StringBuilder s, LabResult lab) {
        boolean bad = lab.goals().stream().anyMatch(g -> g.goal().failed()) || !lab.ok();
        s.append("<section class=\"verdict ")
                .append(bad ? "bad" : "good")
                .append("\" id=\"verdict\"><h2>Verdict</h2>\n<p>")
                .append(esc(TextReport.summary(lab)))
                .append(".</p>\n");
        Table t = Table.goals(lab);
        if (!t.rows().isEmpty()) {
            s.append("<table class=\"goals\"><tr>");
            t.header().forEach(h -> s.append("<th>").append(esc(h)).append("</th>"));
            s.append("</tr>\n");
            for (List<String> row : t.rows()) {
                s.append("<tr>");
                for (int i = 0; i < row.size(); i++) {
                    String c = row.get(i);
                    if (i == row.size() - 1) {
                        String cls = c.equals("met")
                                ? "met"
                                : c.equals("NOT met")
                                        ? "not-met"
                                        : c.equals("inconclusive") ? "inconclusive" : "not-judged";
                        String mark = c.equals("met")
                                ? "✓ "
                                : c.equals("NOT met") ? "✗ " : c.equals("inconclusive") ? "? " : "";
                        s.append("<td class=\"")
                                .append(cls)
                                .append("\">")
                                .append(mark)
                                .append(esc(c))
                                .append("</td>");
                    } else if (i == 2 && c.contains(" (")) {
                        // the figure on one line, how it was taken below it, in smaller type
                        int cut = c.indexOf(" (");
                        s.append("<td class=\"fig\">")
                                .append(esc(c.substring(0, cut)))
                                .append("<span class=\"spread\">")
                                .append(esc(c.substring(cut + 2, c.length() - 1)))
                                .append("</span></td>");
                    } else {
                        s.append(i >= 2 ? "<td class=\"fig\">" : "<td>")
                                .append(esc(c))
                                .append("</td>");
                    }
                }
                s.append("</tr>\n");
            }
            s.append("</table>\n");
        }
        for (ScenarioResult r : lab.scenarios()) {
            if (!r.ok()) {
                s.append("<p class=\"failed\">")
                        .append(esc(r.name()))
                        .append(" did not run to the end (failed).</p>\n");
            }
        }
        for (String line : TextReport.busyMachine(lab)) {
            s.append("<p class=\"busy\">⚠ ").append(esc(line)).append(".</p>\n");
        }
        s.append("</section>\n");
    }

    private static void section(StringBuilder s, ScenarioResult r, LabResult lab) {
        s.append("<section id=\"")
                .append(esc(r.name()))
                .append("\"><h2>")
                .append(esc(r.name()))
                .append(esc(Table.jdkSuffix(r, lab)))
                .append(": ")
                .append(esc(r.title()));
        if (r.missedAGoal()) {
            s.append(" <span class=\"missed\">(goals NOT all met)</span>");
        }
        s.append("</h2>\n");
        s.append("<p class=\"meta\">Source: ")
                .append(linked(r.source()))
                .append("<br>")
                .append(r.ok() ? "ran to the end" : "<span class=\"failed\">failed</span>")
                .append(String.format(Locale.ROOT, " in %.1f s", r.seconds()))
                .append(r.budgetSeconds() == null ? "" : " (budget " + r.budgetSeconds() + " s)")
                .append(r.jdk() == null ? "" : ", JDK " + esc(r.jdk()))
                .append("</p>\n");
        if (!r.goals().isEmpty()) {
            s.append("<ul class=\"goals\">");
            for (Goal g : r.goals()) {
                s.append("<li>Goal: ")
                        .append(esc(g.name()))
                        .append(": ")
                        .append(esc(Table.goalMeasured(g)))
                        .append(", interval ")
                        .append(esc(Table.goalInterval(g)))
                        .append(", ")
                        .append(g.failed() ? "<b class=\"failed\">✗ NOT met</b>" : esc(g.verdictText()))
                        .append(esc(g.roundsNeededText()))
                        .append("</li>");
            }
            s.append("</ul>\n");
        }
        for (Map.Entry<String, List<Variant>> unit : byUnit(r.variants()).entrySet()) {
            List<List<Variant>> groups = groups(unit.getValue());
            for (List<Variant> group : groups) {
                boolean onlyEstimates = group.stream().noneMatch(v -> Variant.MEASURED.equals(v.kind()));
                s.append(chart(
                        unit.getKey(),
                        group,
                        onlyEstimates && groups.size() > 1
                                ? "extrapolated or estimated, on a scale of their own"
                                : null));
            }
            s.append(LoadChart.render(unit.getKey(), unit.getValue()));
        }
        List<Variant> withThreads = r.variants().stream()
                .filter(v -> v.peakPlatformThreads() != null)
                .toList();
        if (!withThreads.isEmpty()) {
            s.append(threadsChart(withThreads));
        }
        Table t = Table.of(r);
        if (!t.rows().isEmpty()) {
            s.append("<table class=\"variants\"><tr>");
            t.header().forEach(h -> s.append("<th>").append(esc(h)).append("</th>"));
            s.append("</tr>\n");
            for (List<String> row : t.rows()) {
                s.append("<tr>");
                for (int i = 0; i < row.size(); i++) {
                    String h = t.header().get(i);
                    String cls = i == 0
                            ? ""
                            : h.equals(Table.RATIO) || h.equals("change") ? " class=\"num\"" : " class=\"num fig\"";
                    s.append("<td")
                            .append(cls)
                            .append(">")
                            .append(esc(row.get(i)))
                            .append("</td>");
                }
                s.append("</tr>\n");
            }
            s.append("</table>\n");
        }
        if (r.limitNote() != null) {
            s.append("<p><b>Limit.</b> ").append(linked(r.limitNote())).append("</p>\n");
        }
        if (!r.notes().isEmpty()) {
            s.append("<ul>");
            r.notes().forEach(n -> s.append("<li>").append(linked(n)).append("</li>"));
            s.append("</ul>\n");
        }
        if (!r.ok()) {
            s.append("<pre>").append(esc(String.valueOf(r.error()))).append("</pre>\n");
        }
        s.append("</section>\n");
    }

    /**
     * The variants of one unit, split so that each chart's figures fit one axis: extrapolated or
     * estimated variants that would stretch the measured ones' axis past {@value #LOG_SPREAD}x
     * get a chart of their own (so a 159 s extrapolation does not turn 1.03 s bars into slivers).
     */
    static List<List<Variant>> groups(List<Variant> variants) {
        List<Variant> measured =
                variants.stream().filter(v -> Variant.MEASURED.equals(v.kind())).toList();
        List<Variant> others = variants.stream()
                .filter(v -> !Variant.MEASURED.equals(v.kind()))
                .toList();
        if (measured.isEmpty() || others.isEmpty() || spread(variants) <= LOG_SPREAD || spread(measured) > LOG_SPREAD) {
            return List.of(variants);
        }
        return List.of(measured, others);
    }

    private static double spread(List<Variant> variants) {
        List<Double> f = figures(variants);
        double max = f.stream().mapToDouble(Double::doubleValue).max().orElse(1);
        double min = f.stream()
                .mapToDouble(Double::doubleValue)
                .filter(d -> d > 0)
                .min()
                .orElse(max);
        return min > 0 ? max / min : 1;
    }

    private static List<Double> figures(List<Variant> variants) {
        List<Double> figures = new ArrayList<>();
        for (Variant v : variants) {
            figures.add(v.value());
            if (v.limit() != null) {
                figures.add(v.limit());
            }
            if (v.published() != null) {
                figures.add(v.published());
            }
            if (v.publishedRange() != null) {
                figures.addAll(v.publishedRange());
            }
        }
        return figures;
    }

    /**
     * A horizontal bar chart of variants sharing one unit: measured bars (hatched when
     * extrapolated or estimated), a limit line and a published marker or range per variant. The
     * axis is logarithmic when the figures span more than {@value #LOG_SPREAD}x, else linear from 0.
     */
    static String chart(String unit, List<Variant> variants, String subtitle) {
        List<Double> figures = figures(variants);
        double max = figures.stream().mapToDouble(Double::doubleValue).max().orElse(1);
        double minPositive = figures.stream()
                .mapToDouble(Double::doubleValue)
                .filter(d -> d > 0)
                .min()
                .orElse(max);
        int labelWidth = labelWidth(variants);
        int plotX = labelWidth + 10;
        int plotWidth = WIDTH - plotX - FIGURES;
        Scale scale = max > 0 && minPositive > 0 && max / minPositive > LOG_SPREAD
                ? Scale.log(minPositive, max, plotX, plotWidth)
                : Scale.linear(max, plotX, plotWidth);
        boolean floor = variants.stream().anyMatch(Variant::lowerIsBetter);
        String limitWord = variants.stream()
                .map(Variant::limitLabel)
                .filter(java.util.Objects::nonNull)
                .findFirst()
                .map(l -> "floor: " + l)
                .orElse(floor ? "limit (floor)" : "limit");
        boolean anyLimit = variants.stream().anyMatch(v -> v.limit() != null);
        boolean anyPublished = variants.stream().anyMatch(v -> v.published() != null);
        boolean anyEstimate = variants.stream().anyMatch(v -> !Variant.MEASURED.equals(v.kind()));
        int height = TOP + variants.size() * ROW + AXIS;
        StringBuilder s = new StringBuilder();
        String title = unit
                + (scale.log ? " (log scale)" : ", linear scale from 0")
                + (subtitle == null ? "" : ": " + subtitle);
        s.append("<p class=\"chart-title\">").append(esc(title)).append("</p>\n");
        s.append(String.format(
                Locale.ROOT,
                "<svg class=\"chart\" data-kind=\"figures\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"%s\">%n",
                WIDTH,
                height,
                esc(title)));
        boolean anyMeasured = variants.stream().anyMatch(v -> Variant.MEASURED.equals(v.kind()));
        boolean anyRange = variants.stream().anyMatch(v -> v.publishedRange() != null);
        legend(s, plotX, anyMeasured, anyEstimate, anyLimit ? limitWord : null, anyPublished && !anyRange, anyRange);
        ticks(s, scale, height, TOP);
        for (int i = 0; i < variants.size(); i++) {
            Variant v = variants.get(i);
            double mid = TOP + i * ROW + ROW / 2.0;
            label(s, labelWidth, mid, v.name());
            boolean estimate = !Variant.MEASURED.equals(v.kind());
            double x0 = scale.x(scale.lo);
            double x1 = Math.max(x0 + 2, scale.x(v.value()));
            s.append(String.format(
                    Locale.ROOT,
                    "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"14\" fill=\"%s\" stroke=\"#4c78a8\" stroke-width=\"%s\"><title>%s</title></rect>",
                    x0,
                    mid - 7,
                    x1 - x0,
                    estimate ? "url(#hatch)" : "#4c78a8",
                    estimate ? "1.5" : "0",
                    esc(Table.withUnit(v.value(), unit) + (estimate ? " (" + v.kind() + ")" : ""))));
            // Figures sit in a column of their own so that they never cover a limit or a published marker.
            s.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\" fill=\"#333\">%s</text>",
                    WIDTH - 8,
                    mid,
                    esc(Table.number(v.value()) + (estimate ? " (" + abbreviation(v.kind()) + ")" : ""))));
            if (v.publishedRange() != null) {
                double a = scale.x(v.publishedRange().get(0));
                double b = scale.x(v.publishedRange().get(1));
                s.append(String.format(
                        Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"8\" fill=\"none\" stroke=\"#e45756\" stroke-width=\"2\"><title>published %s</title></rect>",
                        a,
                        mid - 4,
                        Math.max(2, b - a),
                        esc(Table.published(v))));
            } else if (v.published() != null) {
                double x = scale.x(v.published());
                s.append(String.format(
                        Locale.ROOT,
                        "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" stroke=\"#e45756\" stroke-width=\"2\"><title>published %s</title></polygon>",
                        x,
                        mid - 7,
                        x + 7,
                        mid,
                        x,
                        mid + 7,
                        x - 7,
                        mid,
                        esc(Table.withUnit(v.published(), unit))));
            }
            if (v.limit() != null) {
                double x = scale.x(v.limit());
                s.append(String.format(
                        Locale.ROOT,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#111\" stroke-width=\"2.5\"><title>%s %s</title></line>",
                        x,
                        mid - 12,
                        x,
                        mid + 12,
                        esc(v.limitLabel() == null ? "limit" : "floor: " + v.limitLabel()),
                        esc(Table.withUnit(v.limit(), unit))));
            }
            s.append('\n');
        }
        return s.append("</svg>\n").toString();
    }

    /** Peak platform threads per variant, on a linear axis from 0: the thread story in one picture. */
    static String threadsChart(List<Variant> variants) {
        double max = variants.stream()
                .mapToDouble(v -> v.peakPlatformThreads())
                .max()
                .orElse(1);
        int labelWidth = labelWidth(variants);
        int plotX = labelWidth + 10;
        Scale scale = Scale.linear(Math.max(1, max), plotX, WIDTH - plotX - FIGURES);
        // No legend: the title above says what the bars are.
        int top = 8;
        int height = top + variants.size() * ROW + AXIS;
        StringBuilder s = new StringBuilder(
                "<p class=\"chart-title\">peak platform threads per variant, linear scale from 0</p>\n");
        s.append(String.format(
                Locale.ROOT,
                "<svg class=\"chart\" data-kind=\"threads\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"peak platform threads\">%n",
                WIDTH,
                height));
        ticks(s, scale, height, top);
        for (int i = 0; i < variants.size(); i++) {
            Variant v = variants.get(i);
            double mid = top + i * ROW + ROW / 2.0;
            label(s, labelWidth, mid, v.name());
            double x0 = scale.x(0);
            double x1 = Math.max(x0 + 2, scale.x(v.peakPlatformThreads()));
            s.append(String.format(
                    Locale.ROOT,
                    "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"14\" fill=\"#f58518\"><title>%,d platform threads at peak</title></rect>",
                    x0,
                    mid - 7,
                    x1 - x0,
                    v.peakPlatformThreads()));
            s.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\" fill=\"#333\">%,d</text>%n",
                    WIDTH - 8,
                    mid,
                    v.peakPlatformThreads()));
        }
        return s.append("</svg>\n").toString();
    }

    /** An axis label: the figure without trailing zeros (0.3, 1.2, 40, 1,500). */
    static String tick(double v) {
        String n = Table.number(v);
        return n.contains(".") ? n.replaceAll("0+$", "").replaceAll("\\.$", "") : n;
    }

    private static String abbreviation(String kind) {
        return Variant.EXTRAPOLATED.equals(kind) ? "extrap." : "est.";
    }

    private static int labelWidth(List<Variant> variants) {
        // The label column fits the longest variant name (about 7 px per character at 12 px).
        return Math.max(
                120,
                10
                        + 7
                                * variants.stream()
                                        .mapToInt(v -> v.name().length())
                                        .max()
                                        .orElse(0));
    }

    private static void label(StringBuilder s, int labelWidth, double mid, String name) {
        s.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%s</text>",
                labelWidth,
                mid,
                esc(name)));
    }

    private static void ticks(StringBuilder s, Scale scale, int height, int top) {
        for (double tick : scale.ticks()) {
            double x = scale.x(tick);
            s.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e5e5e5\"/>",
                    x,
                    top - 4,
                    x,
                    height - AXIS));
            s.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#666\">%s</text>%n",
                    x,
                    height - AXIS + 16,
                    esc(tick(tick))));
        }
    }

    private static void legend(
            StringBuilder s,
            int plotX,
            boolean measured,
            boolean estimates,
            String limitWord,
            boolean published,
            boolean range) {
        int x = plotX;
        if (measured) {
            s.append("<rect x=\"")
                    .append(x)
                    .append("\" y=\"8\" width=\"12\" height=\"12\" fill=\"#4c78a8\"/>")
                    .append("<text x=\"")
                    .append(x + 17)
                    .append("\" y=\"18\">measured</text>");
            x += 85;
        }
        if (estimates) {
            s.append("<rect x=\"")
                    .append(x)
                    .append("\" y=\"8\" width=\"12\" height=\"12\" fill=\"url(#hatch)\" stroke=\"#4c78a8\"/>")
                    .append("<text x=\"")
                    .append(x + 17)
                    .append("\" y=\"18\">extrapolated / estimated</text>");
            x += 175;
        }
        if (limitWord != null) {
            s.append("<line x1=\"")
                    .append(x)
                    .append("\" y1=\"6\" x2=\"")
                    .append(x)
                    .append("\" y2=\"22\" stroke=\"#111\" stroke-width=\"2.5\"/>")
                    .append("<text x=\"")
                    .append(x + 7)
                    .append("\" y=\"18\">")
                    .append(esc(limitWord))
                    .append("</text>");
            x += 20 + 7 * limitWord.length();
        }
        if (published) {
            s.append("<polygon points=\"")
                    .append(x + 6)
                    .append(",8 ")
                    .append(x + 12)
                    .append(",14 ")
                    .append(x + 6)
                    .append(",20 ")
                    .append(x)
                    .append(",14\" fill=\"none\" stroke=\"#e45756\" stroke-width=\"2\"/>")
                    .append("<text x=\"")
                    .append(x + 17)
                    .append("\" y=\"18\">published</text>");
            x += 95;
        }
        if (range) {
            s.append("<rect x=\"")
                    .append(x)
                    .append(
                            "\" y=\"10\" width=\"24\" height=\"8\" fill=\"none\" stroke=\"#e45756\" stroke-width=\"2\"/>")
                    .append("<text x=\"")
                    .append(x + 30)
                    .append("\" y=\"18\">published range</text>");
        }
        s.append('\n');
    }

    private static Map<String, List<Variant>> byUnit(List<Variant> variants) {
        Map<String, List<Variant>> m = new LinkedHashMap<>();
        variants.forEach(
                v -> m.computeIfAbsent(v.unit(), u -> new ArrayList<>()).add(v));
        return m;
    }

    /** {@code text}, escaped, with every http(s) URL in it a link. */
    static String linked(String text) {
        Matcher m = URL.matcher(text);
        StringBuilder s = new StringBuilder();
        int last = 0;
        while (m.find()) {
            s.append(esc(text.substring(last, m.start())));
            s.append("<a href=\"")
                    .append(esc(m.group()))
                    .append("\">")
                    .append(esc(m.group()))
                    .append("</a>");
            last = m.end();
        }
        return s.append(esc(text.substring(last))).toString();
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** Maps figures to x positions, linearly from 0 or logarithmically between powers of ten. */
    private record Scale(boolean log, double lo, double hi, int plotX, int plotWidth) {

        static Scale linear(double max, int plotX, int plotWidth) {
            return new Scale(false, 0, niceCeiling(max <= 0 ? 1 : max * 1.05), plotX, plotWidth);
        }

        static Scale log(double min, double max, int plotX, int plotWidth) {
            double lo = Math.pow(10, Math.floor(Math.log10(min)));
            // A bar just above a power of ten would be a sliver: start the axis a decade lower.
            if (min / lo < 3) {
                lo /= 10;
            }
            return new Scale(true, lo, Math.pow(10, Math.ceil(Math.log10(max))), plotX, plotWidth);
        }

        double x(double v) {
            double f =
                    log ? (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) : v / hi;
            return plotX + plotWidth * Math.max(0, Math.min(1, f));
        }

        List<Double> ticks() {
            List<Double> ticks = new ArrayList<>();
            if (log) {
                for (double t = lo; t <= hi * 1.0001; t *= 10) {
                    ticks.add(t);
                }
            } else {
                for (int i = 0; i <= 5; i++) {
                    ticks.add(hi * i / 5);
                }
            }
            return ticks;
        }
    }

    /** The smallest of 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten that is at least {@code v} (> 0). */
    static double niceCeiling(double v) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
        for (double step : new double[] {1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
            if (step * magnitude >= v) {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }
}
