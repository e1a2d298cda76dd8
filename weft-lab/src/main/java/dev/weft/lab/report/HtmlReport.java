package dev.weft.lab.report;

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

/**
 * {@code report.html}: self-contained (inline CSS and SVG, no scripts, nothing fetched), one
 * section per scenario with a chart of its variants side by side against their limits, and the
 * table.
 */
public final class HtmlReport {

    private static final int WIDTH = 820;
    /** Room for the figures' own column at the right. */
    private static final int FIGURES = 90;
    private static final int ROW = 30;
    private static final int TOP = 34;
    private static final int AXIS = 28;

    private HtmlReport() {
    }

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
                body{font:15px/1.45 system-ui,sans-serif;max-width:860px;margin:2em auto;padding:0 1em;color:#1d1d1f}
                h1{margin-bottom:.2em} h2{margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
                table{border-collapse:collapse;margin:.8em 0} th,td{padding:.25em .7em;border-bottom:1px solid #eee}
                td:not(:first-child),th:not(:first-child){text-align:right} th{background:#f6f6f6}
                .meta{color:#555} .failed{color:#b00020;font-weight:600} pre{background:#f6f6f6;padding:.8em;overflow:auto}
                svg text{font:12px system-ui,sans-serif}
                </style></head><body>
                <h1>weft lab</h1>
                """);
        s.append("<p class=\"meta\">JDK ").append(esc(lab.jdk())).append(", ").append(lab.cores()).append(" cores, ")
                .append(esc(lab.mode())).append(" mode, started ").append(esc(lab.started())).append(".<br>")
                .append("Every figure was measured on this machine in this run. Bars are measured figures; a black line marks ")
                .append("the physical limit of each variant here; a red diamond marks what the article published.</p>\n");
        for (ScenarioResult r : lab.scenarios()) {
            s.append("<section><h2>").append(esc(r.name())).append(": ").append(esc(r.title())).append("</h2>\n");
            s.append("<p class=\"meta\">Source: ").append(link(r.source())).append("<br>")
                    .append(r.ok() ? "ok" : "<span class=\"failed\">failed</span>")
                    .append(String.format(Locale.ROOT, " in %.1f s", r.seconds())).append("</p>\n");
            for (Map.Entry<String, List<Variant>> unit : byUnit(r.variants()).entrySet()) {
                s.append(chart(unit.getKey(), unit.getValue()));
            }
            Table t = Table.of(r);
            if (!t.rows().isEmpty()) {
                s.append("<table><tr>");
                t.header().forEach(h -> s.append("<th>").append(esc(h)).append("</th>"));
                s.append("</tr>\n");
                for (List<String> row : t.rows()) {
                    s.append("<tr>");
                    row.forEach(c -> s.append("<td>").append(esc(c)).append("</td>"));
                    s.append("</tr>\n");
                }
                s.append("</table>\n");
            }
            if (r.limitNote() != null) {
                s.append("<p><b>Limit.</b> ").append(esc(r.limitNote())).append("</p>\n");
            }
            if (!r.notes().isEmpty()) {
                s.append("<ul>");
                r.notes().forEach(n -> s.append("<li>").append(esc(n)).append("</li>"));
                s.append("</ul>\n");
            }
            if (!r.ok()) {
                s.append("<pre>").append(esc(String.valueOf(r.error()))).append("</pre>\n");
            }
            s.append("</section>\n");
        }
        return s.append("</body></html>\n").toString();
    }

    /**
     * A horizontal bar chart of variants sharing one unit: measured bars, a limit line and a
     * published marker per variant. The scale is logarithmic when the figures span more than 30x.
     */
    static String chart(String unit, List<Variant> variants) {
        List<Double> figures = new ArrayList<>();
        for (Variant v : variants) {
            figures.add(v.value());
            if (v.limit() != null) {
                figures.add(v.limit());
            }
            if (v.published() != null) {
                figures.add(v.published());
            }
        }
        double max = figures.stream().mapToDouble(Double::doubleValue).max().orElse(1);
        double minPositive = figures.stream().mapToDouble(Double::doubleValue).filter(d -> d > 0).min().orElse(max);
        // The label column fits the longest variant name (about 7 px per character at 12 px).
        int labelWidth = Math.max(120, 10 + 7 * variants.stream().mapToInt(v -> v.name().length()).max().orElse(0));
        int plotX = labelWidth + 10;
        int plotWidth = WIDTH - plotX - FIGURES;
        Scale scale = max > 0 && minPositive > 0 && max / minPositive > 30
                ? Scale.log(minPositive, max, plotX, plotWidth) : Scale.linear(max, plotX, plotWidth);
        int height = TOP + variants.size() * ROW + AXIS;
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"%s\">%n",
                WIDTH, height, esc(unit)));
        legend(s, unit, scale.log, labelWidth, plotX);
        for (double tick : scale.ticks()) {
            double x = scale.x(tick);
            s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e5e5e5\"/>", x, TOP - 4, x, height - AXIS));
            s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#666\">%s</text>%n",
                    x, height - AXIS + 16, esc(Table.number(tick))));
        }
        for (int i = 0; i < variants.size(); i++) {
            Variant v = variants.get(i);
            int y = TOP + i * ROW;
            double mid = y + ROW / 2.0;
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">%s</text>",
                    labelWidth, mid, esc(v.name())));
            double x0 = scale.x(scale.lo);
            double x1 = Math.max(x0 + 1, scale.x(v.value()));
            s.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"14\" fill=\"#4c78a8\"><title>%s</title></rect>",
                    x0, mid - 7, x1 - x0, esc(Table.withUnit(v.value(), unit))));
            // Figures sit in a column of their own so that they never cover a limit or a published marker.
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\" fill=\"#333\">%s</text>",
                    WIDTH - 8, mid, esc(Table.number(v.value()))));
            if (v.limit() != null) {
                double x = scale.x(v.limit());
                s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#111\" stroke-width=\"2.5\"><title>limit %s</title></line>",
                        x, mid - 12, x, mid + 12, esc(Table.withUnit(v.limit(), unit))));
            }
            if (v.published() != null) {
                double x = scale.x(v.published());
                s.append(String.format(Locale.ROOT, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" stroke=\"#e45756\" stroke-width=\"2\"><title>published %s</title></polygon>",
                        x, mid - 7, x + 7, mid, x, mid + 7, x - 7, mid, esc(Table.withUnit(v.published(), unit))));
            }
            s.append('\n');
        }
        return s.append("</svg>\n").toString();
    }

    private static void legend(StringBuilder s, String unit, boolean log, int labelWidth, int plotX) {
        s.append("<rect x=\"").append(plotX).append("\" y=\"8\" width=\"12\" height=\"12\" fill=\"#4c78a8\"/>")
                .append("<text x=\"").append(plotX + 17).append("\" y=\"18\">measured</text>")
                .append("<line x1=\"").append(plotX + 95).append("\" y1=\"6\" x2=\"").append(plotX + 95)
                .append("\" y2=\"22\" stroke=\"#111\" stroke-width=\"2.5\"/>")
                .append("<text x=\"").append(plotX + 102).append("\" y=\"18\">limit</text>")
                .append("<polygon points=\"").append(plotX + 151).append(",8 ").append(plotX + 157).append(",14 ")
                .append(plotX + 151).append(",20 ").append(plotX + 145).append(",14\" fill=\"none\" stroke=\"#e45756\" stroke-width=\"2\"/>")
                .append("<text x=\"").append(plotX + 162).append("\" y=\"18\">published</text>")
                .append("<text x=\"").append(labelWidth).append("\" y=\"18\" text-anchor=\"end\" fill=\"#666\">")
                .append(esc(unit)).append(log ? " (log scale)" : "").append("</text>\n");
    }

    private static Map<String, List<Variant>> byUnit(List<Variant> variants) {
        Map<String, List<Variant>> m = new LinkedHashMap<>();
        variants.forEach(v -> m.computeIfAbsent(v.unit(), u -> new ArrayList<>()).add(v));
        return m;
    }

    private static String link(String source) {
        int http = source.indexOf("http");
        if (http < 0) {
            return esc(source);
        }
        String url = source.substring(http).split("\\s")[0];
        return esc(source.substring(0, http)) + "<a href=\"" + esc(url) + "\">" + esc(url) + "</a>"
                + esc(source.substring(http + url.length()));
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
            return new Scale(true, Math.pow(10, Math.floor(Math.log10(min))), Math.pow(10, Math.ceil(Math.log10(max))),
                    plotX, plotWidth);
        }

        double x(double v) {
            double f = log ? (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) : v / hi;
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

        private static double niceCeiling(double v) {
            double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
            for (double step : new double[] {1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
                if (step * magnitude >= v) {
                    return step * magnitude;
                }
            }
            return 10 * magnitude;
        }
    }
}
