package dev.weft.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.lab.LabResult;
import dev.weft.lab.ScenarioResult;
import dev.weft.lab.Variant;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {

    private static final ScenarioResult PINNING = new ScenarioResult(
            "pinning",
            "locks & <I/O>",
            "An article https://example.org/a",
            "Little's law",
            "ok",
            null,
            12.5,
            List.of("a note"),
            List.of(
                    Variant.of(
                            "no-lock",
                            "tasks/s",
                            64_399.2,
                            100_000.0,
                            92_000.0,
                            Map.of("scheduler", Map.of("peak_platform_threads", 1_013L))),
                    Variant.of("reentrant-lock", "tasks/s", 97.6, 100.0, 8_500.0, Map.of()),
                    Variant.of("class-init", "tasks/s", 191.0, 200.0, null, Map.of())));

    @Test
    void numbersGetTheDigitsTheyDeserve() {
        assertEquals("98,532", Table.number(98_532.4));
        assertEquals("412", Table.number(412.4));
        assertEquals("41.2", Table.number(41.24));
        assertEquals("4.12", Table.number(4.124));
        assertEquals("0.412", Table.number(0.4124));
        assertEquals("0", Table.number(0));
        assertEquals("22", Table.number(22.0), "a count has no decimals");
        assertEquals("3", Table.number(3.0));
        assertEquals("0.64", Table.ratio(0.64399));
        assertEquals("0.0123", Table.ratio(0.01234));
        assertEquals("-", Table.ratio((Double) null));
        assertEquals("-", Table.withUnit(null, "ms"));
    }

    @Test
    void theTableHasTheIssuesColumnsAndThreadsWhenRecorded() {
        Table t = Table.of(PINNING);
        assertEquals(
                List.of("variant", "measured", "published", "limit", "measured vs limit", "peak platform threads"),
                t.header());
        assertEquals(
                List.of(
                        "no-lock",
                        "64,399 tasks/s",
                        "92,000 tasks/s",
                        "100,000 tasks/s",
                        "0.64x of the limit, higher is better",
                        "1,013"),
                t.rows().get(0));
        assertEquals(
                List.of("class-init", "191 tasks/s", "-", "200 tasks/s", "0.96x of the limit, higher is better", "-"),
                t.rows().get(2));
        Variant time = Variant.of("weft-context", "ms", 110, 100.0, null, Map.of());
        assertEquals("1.10x the floor, lower is better", Table.ratio(time), "a time's limit is a floor");
    }

    @Test
    void textAlignsColumnsAndShowsLimitNotesAndErrors() {
        String text = TextReport.scenario(PINNING.failed("it broke\nat line 2", 1));
        assertTrue(text.contains("  limit: Little's law"), text);
        assertTrue(text.contains("  note: a note"), text);
        assertTrue(text.contains("  FAILED: it broke\n          at line 2"), text);
        List<String> rows = text.lines().filter(l -> l.contains("tasks/s")).toList();
        assertEquals(3, rows.size());
        assertEquals(
                rows.get(0).indexOf("tasks/s"), rows.get(2).indexOf("tasks/s"), "figures are right-aligned: " + text);
    }

    @Test
    void theConsoleSummaryOpensWithTheVerdictThenDetailsThenTimes() {
        LabResult lab = SampleLab.result();
        String text = TextReport.consoleSummary(lab, false, 240);
        List<String> lines = text.lines().toList();
        assertTrue(
                lines.getFirst()
                        .startsWith(
                                "verdict: 3 of 5 goals met, 1 NOT met, 1 inconclusive; 7 of 8 scenarios ran to the end"),
                text);
        assertTrue(
                lines.get(1).matches("scenario +goal +measured +interval +target +verdict"),
                "the verdict table comes next: " + text);
        String contextRow =
                lines.stream().filter(l -> l.startsWith("context ")).findFirst().orElseThrow();
        assertTrue(contextRow.endsWith("  NOT met") && contextRow.contains("1.107x (median of 3 rounds"), contextRow);
        assertTrue(contextRow.contains("1.107x to 1.210x (75%)"), "the interval beside the median: " + contextRow);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("fanout ") && l.endsWith("  met")), text);
        assertTrue(
                lines.stream().anyMatch(l -> l.startsWith("switch ") && l.endsWith("  inconclusive")),
                "an interval that straddles the target decides nothing: " + text);
        String estimate = "inconclusive (about 743 rounds at this spread would decide it)";
        assertTrue(
                text.contains("  goal: virtual-handoff at most 0.0625x platform-handoff's time (per round): ")
                        && text.contains(estimate),
                "an inconclusive goal's line says how far it is from a verdict (decision 0884): " + text);
        assertTrue(MarkdownReport.render(lab).contains(estimate), "and so does report.md");
        assertTrue(HtmlReport.render(lab).contains(estimate), "and report.html");
        assertTrue(text.contains("  http did not run to the end: FAILED"), text);
        assertTrue(
                text.contains("  the machine was BUSY when context started: other processes used 1.4 of its 2 cores"
                        + " (load average 3.20, 1% stolen)"),
                "the verdict says where the machine was busy: " + text);
        assertFalse(text.contains("BUSY when fanout"), "a quiet machine is not called busy: " + text);
        int verdict = text.indexOf("verdict:");
        int details = text.indexOf("\nfanout: N HTTP GETs");
        int pinning21 = text.indexOf("\npinning (JDK 21): 1,000 virtual threads");
        int times = text.indexOf("\ntime: ");
        assertTrue(verdict == 0 && verdict < details && details < pinning21 && pinning21 < times, text);
        assertTrue(text.contains("\ncontext: Context for N virtual-thread tasks (goals NOT all met)\n"), text);
        assertTrue(
                text.contains(
                        "time: fanout 31.2 s of 40 s; pinning (JDK 25) 20.5 s of 30 s; pinning (JDK 21) 21.5 s of 30 s;"),
                text);
        assertTrue(text.contains(" http 120.0 s of 60 s OVER BUDGET\n"), text);
        assertTrue(text.endsWith("total: 3 min 34 s, within the quick lab's budget of 4 min\n"), text);
        assertFalse(text.contains("\u001b"), "no colour unless asked");

        String coloured = TextReport.consoleSummary(lab, true, null);
        assertTrue(coloured.contains("  \u001b[1;31mNOT met\u001b[0m"), "NOT met in red, and in words");
        assertTrue(coloured.endsWith("total: 3 min 34 s\n"), "no budget for a subset: " + coloured);
        LabResult slow = new LabResult(
                lab.formatVersion(), lab.jdk(), lab.cores(), lab.mode(), lab.started(), 250.4, null, lab.scenarios());
        assertTrue(TextReport.times(slow, 240).endsWith("total: 4 min 10 s, OVER the quick lab's budget of 4 min\n"));
    }

    @Test
    void aScenariosProgressLineEndsWithItsOutcome() {
        LabResult lab = SampleLab.result();
        assertEquals(
                "done in 31.2 s (budget 40 s)",
                TextReport.progressLine(lab.scenarios().get(0)));
        assertEquals(
                "done in 42.0 s (budget 45 s); goals NOT all met",
                TextReport.progressLine(lab.scenarios().get(3)));
        assertEquals(
                "FAILED in 120.0 s (budget 60 s, OVER BUDGET): timed out after 120 s",
                TextReport.progressLine(lab.scenarios().get(7)));
    }

    @Test
    void markdownHasOneSectionAndTablePerScenario() {
        String md = MarkdownReport.render(new LabResult("25", 2, "quick", "now", List.of(PINNING)));
        assertTrue(md.contains("## pinning: locks & <I/O>"));
        assertTrue(
                md.contains("| variant | measured | published | limit | measured vs limit | peak platform threads |"));
        assertTrue(
                md.contains(
                        "| no-lock | 64,399 tasks/s | 92,000 tasks/s | 100,000 tasks/s | 0.64x of the limit, higher is better | 1,013 |"));
        assertTrue(md.contains("**Limit.** Little's law"));
    }

    @Test
    void htmlIsSelfContainedEscapedAndChartsEveryVariantAgainstItsLimit(@TempDir Path dir) throws Exception {
        HtmlReport.write(dir.resolve("r.html"), new LabResult("25", 2, "quick", "now", List.of(PINNING)));
        String html = java.nio.file.Files.readString(dir.resolve("r.html"));
        assertTrue(html.contains("locks &amp; &lt;I/O&gt;"), "titles are escaped");
        assertFalse(html.contains("<script"), "no scripts");
        assertFalse(html.contains("src=\"http"), "nothing fetched");
        assertTrue(html.contains("<a href=\"https://example.org/a\">"), "the source links the article");
        assertTrue(html.contains("tasks/s (log scale)"), "64,399 against 97.6 needs a log scale");
        assertEquals(3, count(html, "class=\"bar\" x=") - 1, "a bar per variant, and one in the threads chart");
        assertEquals(1, count(html, "data-kind=\"threads\""), "a threads chart: one variant has a peak");
        assertEquals(3, count(html, "<title>limit "), "a limit line per variant with a limit");
        assertEquals(2, count(html, "<title>published "), "a marker per published figure");
    }

    @Test
    void linearScaleWhenFiguresAreClose() {
        String svg = HtmlReport.chart(
                "ms",
                List.of(
                        Variant.of("a", "ms", 1000, 1000.0, null, Map.of()),
                        Variant.of("b", "ms", 1300, 1000.0, 6000.0, Map.of())),
                null);
        assertFalse(svg.contains("log scale"), svg);
    }

    @Test
    void variantsAtSeveralLoadsGetTheirFigureAgainstTheOfferedLoad() {
        List<Variant> overload = new java.util.ArrayList<>();
        for (String v : List.of("jetty-hikaricp", "weft-ring-admission")) {
            for (int load : List.of(4, 1, 2)) { // in any order: drawn by load
                double goodput = v.startsWith("weft") ? Math.min(load, 1) * 1_950 : 1_900.0 / load;
                overload.add(Variant.of(v + "@" + load + "x", "req/s", goodput, 2_000.0, null, Map.of()));
            }
        }
        overload.add(Variant.of("alone", "req/s", 10, 2_000.0, null, Map.of()));
        String svg = LoadChart.render("req/s", overload);
        assertEquals(1, count(svg, "data-kind=\"load\""), svg);
        assertEquals(2, count(svg, "class=\"series\""), "a line per variant, none for a variant at one load");
        assertEquals(6, count(svg, "class=\"point\""), "a point per load");
        assertEquals(1, count(svg, "<title>limit 2,000 req/s</title>"), "the capacity across: " + svg);
        assertTrue(svg.contains("<title>weft-ring-admission@4x: 1,950 req/s</title>"), svg);
        List<LoadChart.Series> series = LoadChart.series(overload);
        assertEquals(
                List.of(1.0, 2.0, 4.0),
                series.get(0).points().stream().map(LoadChart.Point::factor).toList());
        assertEquals(
                "",
                LoadChart.render("ms", List.of(Variant.of("a@1x", "ms", 1, null, null, Map.of()))),
                "one load is no line");
        String html = HtmlReport.render(new LabResult("25", 2, "quick", "now", List.of(PINNING)));
        assertFalse(html.contains("data-kind=\"load\""), "no load chart where no variant ran at several loads");
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
