package dev.weft.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SuppressionsTest {

    private static final String FIX = "dev.weft.audit.fixture.";

    @Test
    void aBaselineSuppressesWhatItHoldsAndNothingNew(@TempDir Path dir) throws Exception {
        Path jar = Fixtures.fixtureJar(dir);
        AuditReport first = Auditor.forTargetJdk(21).audit(List.of(jar.toString()));
        Path baseline = dir.resolve("audit-baseline.json");
        Suppressions.none().writeBaseline(first, baseline);

        AuditReport again = Suppressions.none()
                .withBaseline(baseline)
                .apply(Auditor.forTargetJdk(21).audit(List.of(jar.toString())));
        assertEquals(List.of(), again.findings(), again.toText());
        assertEquals(first.findings().size(), again.suppressed().size());
        assertEquals(0, again.counts().get(Severity.ERROR));
        assertTrue(again.worst().isEmpty(), "nothing counted, so nothing reaches --fail-on");
        assertTrue(again.toText().contains(first.findings().size() + " more suppressed (not counted)"), again.toText());
        assertTrue(
                again.suppressed().getFirst().justification().startsWith("in the baseline " + baseline),
                again.toText());

        // an entry's reason is shown, and kept when the baseline is written again
        String edited =
                Files.readString(baseline).replaceFirst("\"reason\" : \"\"", "\"reason\" : \"accepted in review 12\"");
        Files.writeString(baseline, edited);
        Suppressions withReason = Suppressions.none().withBaseline(baseline);
        AuditReport r = withReason.apply(first);
        assertEquals(
                1,
                r.suppressed().stream()
                        .filter(s -> s.justification().endsWith(": accepted in review 12"))
                        .count());
        withReason.writeBaseline(r, baseline);
        assertTrue(Files.readString(baseline).contains("accepted in review 12"));

        // a smaller baseline leaves the rest counted
        Path partial = dir.resolve("partial.json");
        Suppressions.none()
                .writeBaseline(
                        new AuditReport(
                                first.inputs(),
                                21,
                                first.classes(),
                                first.bytes(),
                                first.elapsed(),
                                first.findings().subList(0, 1),
                                List.of()),
                        partial);
        AuditReport some = Suppressions.none().withBaseline(partial).apply(first);
        assertEquals(first.findings().size() - 1, some.findings().size());
        assertEquals(first.findings().getFirst(), some.suppressed().getFirst().finding());
    }

    @Test
    void anExclusionMatchesClassOrMemberPatternsWithItsReason(@TempDir Path dir) throws Exception {
        AuditReport r =
                Auditor.forTargetJdk(21).audit(List.of(Fixtures.fixtureJar(dir).toString()));
        AuditReport s = Suppressions.none()
                .excluding(FIX + "BlockingInit.<clinit>", "blocks on purpose")
                .excluding(FIX + "Sync*", null)
                .excluding(FIX + "Waiter", "")
                .apply(r);
        assertEquals(
                List.of("BlockingInit.<clinit>", "SyncBlock.refresh", "SyncMethod.take", "Waiter.awaitReady"),
                s.suppressed().stream()
                        .map(x -> x.finding().location().substring(FIX.length()))
                        .sorted()
                        .toList());
        assertEquals(r.findings().size() - 4, s.findings().size());
        assertTrue(
                s.suppressed().stream()
                        .anyMatch(x -> x.justification()
                                .equals("excluded by " + FIX + "BlockingInit.<clinit>: blocks on purpose")),
                s.toText());
        assertTrue(
                s.suppressed().stream().anyMatch(x -> x.justification().equals("excluded by " + FIX + "Sync*")),
                s.toText());
        assertEquals(
                0,
                Suppressions.none().excluding(FIX + "Blocking", null).apply(r).suppressed().stream()
                        .filter(x -> x.finding().className().equals(FIX + "BlockingInit"))
                        .count(),
                "a class name matches whole names only");
        assertThrows(IllegalArgumentException.class, () -> Suppressions.none().excluding(" ", null));
    }

    @Test
    void sarifCarriesSuppressedFindingsAsSuppressedResults(@TempDir Path dir) throws Exception {
        AuditReport r = Suppressions.none()
                .excluding(FIX + "Waiter.*", "reviewed")
                .apply(Auditor.forTargetJdk(21)
                        .audit(List.of(Fixtures.fixtureJar(dir).toString())));
        JsonNode results =
                new ObjectMapper().readTree(r.toSarif()).path("runs").get(0).path("results");
        int suppressed = 0;
        for (JsonNode result : results) {
            if (result.has("suppressions")) {
                suppressed++;
                JsonNode sup = result.path("suppressions").get(0);
                assertEquals("external", sup.path("kind").asText());
                assertEquals("accepted", sup.path("status").asText());
                assertEquals(
                        "excluded by " + FIX + "Waiter.*: reviewed",
                        sup.path("justification").asText());
            }
        }
        assertEquals(1, suppressed);
        assertEquals(r.findings().size() + 1, results.size(), "suppressed findings stay in the log");
        JsonNode json = new ObjectMapper().readTree(r.toJson());
        assertEquals(1, json.path("suppressed").size());
        assertEquals("object-wait", json.path("suppressed").get(0).path("rule").asText());
    }

    @Test
    void aFileThatIsNotABaselineIsNamedWithTheFix(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("nope.json");
        assertTrue(assertThrows(
                        IllegalArgumentException.class,
                        () -> Suppressions.none().withBaseline(missing))
                .getMessage()
                .contains("write one with --write-baseline " + missing));
        Path other = Files.writeString(dir.resolve("other.json"), "{\"findings\": []}");
        assertTrue(assertThrows(
                        IllegalArgumentException.class,
                        () -> Suppressions.none().withBaseline(other))
                .getMessage()
                .contains("is not a weft audit baseline"));
        Path broken = Files.writeString(dir.resolve("broken.json"), "{");
        assertTrue(assertThrows(
                        IllegalArgumentException.class,
                        () -> Suppressions.none().withBaseline(broken))
                .getMessage()
                .contains("is not JSON"));
    }
}
