package dev.weft.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.lab.LabResult;
import dev.weft.testbrowser.Chromium;
import dev.weft.testbrowser.Page;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * report.html as people see it: rendered by a real headless Chromium, with no console error,
 * every chart drawn, the verdict first and in colour. Keeps a PNG for the reviewer at
 * {@code weft-lab/target/browser/report.png}.
 */
@Tag("browser")
class ReportInBrowserTest {

    static final Path OUT = Path.of("target", "browser");

    @Test
    void theReportRendersEveryChartWithNoErrorAndTheVerdictFirst() throws Exception {
        LabResult lab = SampleLab.result();
        Path html = Files.createDirectories(OUT).resolve("report.html");
        HtmlReport.write(html, lab);
        try (Chromium chromium = Chromium.start();
                Page page = chromium.newPage()) {
            page.viewport(1000, 800).open(html.toUri().toString());

            @SuppressWarnings("unchecked")
            List<Map<String, Object>> charts = (List<Map<String, Object>>) page.evaluate("""
                    [...document.querySelectorAll('svg.chart')].map(svg => {
                      const bars = [...svg.querySelectorAll('rect.bar')];
                      const box = svg.getBoundingClientRect();
                      return {kind: svg.dataset.kind, width: box.width, height: box.height, bars: bars.length,
                              drawn: bars.filter(b => b.getBoundingClientRect().width >= 2).length,
                              inside: bars.every(b => b.getBoundingClientRect().right <= box.right + 0.5)};
                    })""");
            long expected = lab.scenarios().stream()
                    .filter(s -> !s.variants().isEmpty())
                    .count();
            assertTrue(charts.size() >= expected, "a chart per scenario with variants: " + charts);
            for (Map<String, Object> c : charts) {
                if ("load".equals(c.get("kind"))) {
                    continue; // lines, not bars: checked below
                }
                assertTrue(
                        ((Number) c.get("width")).doubleValue() > 100 && ((Number) c.get("height")).doubleValue() > 40,
                        c.toString());
                assertTrue(((Number) c.get("bars")).intValue() > 0, "a chart with bars: " + c);
                assertEquals(c.get("bars"), c.get("drawn"), "every bar is visible: " + c);
                assertEquals(true, c.get("inside"), "no bar overflows its chart: " + c);
            }
            assertTrue(charts.stream().anyMatch(c -> "threads".equals(c.get("kind"))), "a peak-threads chart");

            // overload's goodput against the offered load: a line per server, a point per load,
            // the capacity drawn across, everything inside the chart
            @SuppressWarnings("unchecked")
            Map<String, Object> load = (Map<String, Object>) page.evaluate("""
                    (() => {
                      const svg = document.querySelector('#overload svg.chart[data-kind="load"]');
                      if (!svg) return {found: false};
                      const box = svg.getBoundingClientRect();
                      const within = e => { const r = e.getBoundingClientRect();
                        return r.left >= box.left - 0.5 && r.right <= box.right + 0.5
                            && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5; };
                      const series = [...svg.querySelectorAll('polyline.series')];
                      const points = [...svg.querySelectorAll('circle.point')];
                      return {found: true, series: series.length,
                              points: points.length, pointsInside: points.every(within),
                              seriesInside: series.every(within),
                              limit: svg.querySelectorAll('line.limit').length,
                              titles: points.map(p => p.querySelector('title').textContent)};
                    })()""");
            assertEquals(true, load.get("found"), "overload has a load chart: " + load);
            assertEquals(2L, ((Number) load.get("series")).longValue(), "a line per server: " + load);
            assertEquals(6L, ((Number) load.get("points")).longValue(), "a point per server and load: " + load);
            assertEquals(true, load.get("pointsInside"), "every point inside the chart: " + load);
            assertEquals(true, load.get("seriesInside"), "every line inside the chart: " + load);
            assertEquals(1L, ((Number) load.get("limit")).longValue(), "the capacity drawn across: " + load);
            assertTrue(
                    load.get("titles").toString().contains("jetty-hikaricp@4x: 150 req/s"),
                    "each point says what it is: " + load);

            assertEquals(
                    "Verdict", page.evaluate("document.querySelector('h2').textContent"), "the verdict comes first");
            assertEquals(
                    "rgb(176, 0, 32)",
                    page.evaluate("getComputedStyle(document.querySelector('td.not-met')).color"),
                    "a missed goal is red");
            assertTrue(
                    ((String) page.evaluate("document.querySelector('td.not-met').textContent")).contains("NOT met"),
                    "and says so in words");
            assertTrue(((String) page.evaluate("document.querySelector('#context h2').textContent"))
                    .contains("NOT all met"));
            assertEquals(
                    0L,
                    ((Number)
                                    page.evaluate(
                                            "[...document.querySelectorAll('a')].filter(a => !a.href.startsWith('http')).length"))
                            .longValue(),
                    "every link is a real URL");
            assertEquals(0L, ((Number) page.evaluate("""
                    [...document.querySelectorAll('td.fig')].filter(td => {
                      // the figure itself (its first text); how it was taken may wrap below it
                      const r = document.createRange(); r.selectNodeContents(td.firstChild);
                      return r.getClientRects().length > 1; }).length""")).longValue(), "no figure wraps mid-number");

            page.screenshot(OUT.resolve("report.png"));
            assertEquals(List.of(), page.consoleErrors(), "no console error");
        }
    }
}
