package dev.weft.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.lab.LabResult;
import dev.weft.lab.ResultsSchema;
import dev.weft.lab.ScenarioResult;
import dev.weft.lab.Variant;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ComparisonTest {

    private static ScenarioResult scenario(int jdk, Variant... variants) {
        return new ScenarioResult(
                "context", "t", "s", "x", jdk, null, "ok", null, 1, null, List.of(), List.of(), List.of(variants));
    }

    private static Variant ms(String name, double value, List<Double> rounds) {
        return SampleLab.variant(name, "ms", value, null, null, null, null, null, rounds, null);
    }

    private static LabResult lab(ScenarioResult... scenarios) {
        return new LabResult("25", 2, "quick", "2026-11-23T20:00:00Z", List.of(scenarios));
    }

    @Test
    void everyVariantGetsThePreviousFigureAndAChangeFlaggedOnlyBeyondTheSpread(@TempDir Path dir) throws Exception {
        LabResult before = lab(
                scenario(
                        25,
                        ms("a", 100, List.of(95.0, 100.0, 104.0)),
                        ms("b", 100, List.of(98.0, 100.0, 102.0)),
                        ms("single", 10, List.of())),
                scenario(21, ms("a", 500, List.of(500.0))));
        LabResult now = lab(scenario(
                25,
                ms("a", 103, List.of(101.0, 103.0, 106.0)),
                ms("b", 130, List.of(125.0, 130.0, 140.0)),
                ms("single", 9, List.of()),
                ms("new", 1, List.of(1.0))));
        LabResult compared = Comparison.compare(now, before, "/tmp/before");

        List<Variant> v = compared.scenarios().getFirst().variants();
        assertEquals(100, v.get(0).previous().value());
        assertEquals(0.03, v.get(0).previous().change(), 1e-9);
        assertFalse(v.get(0).previous().beyondSpread(), "+3% inside overlapping rounds is noise");
        assertTrue(v.get(1).previous().beyondSpread(), "+30% with disjoint rounds is a change");
        assertTrue(
                Comparison.Change.of(v.get(1)).text().startsWith("+30.0%, worse, BEYOND"),
                Comparison.Change.of(v.get(1)).text());
        assertNull(v.get(2).previous().beyondSpread(), "no rounds: no judgement of the spread");
        assertNull(v.get(3).previous(), "a variant the previous run did not have");
        assertEquals(
                500,
                Comparison.compare(scenario(21, ms("a", 400, List.of(400.0))), before)
                        .variants()
                        .getFirst()
                        .previous()
                        .value(),
                "scenarios are matched by JDK too");

        Path file = dir.resolve("results.json");
        Json.write(file, compared);
        ResultsSchema.assertValid(file);
        assertTrue(MarkdownReport.render(compared).contains("| previous run | change |"));
    }

    @Test
    void aFolderWithoutResultsIsAClearError(@TempDir Path dir) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Comparison.readPrevious(dir));
        assertTrue(e.getMessage().contains("earlier ./weft lab run"), e.getMessage());
    }
}
