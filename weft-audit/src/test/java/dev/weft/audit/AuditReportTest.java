package dev.weft.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report formats for tools: JSON and SARIF 2.1.0. */
class AuditReportTest {

    @TempDir
    static Path dir;

    static Path fixture;

    @BeforeAll
    static void jars() throws Exception {
        fixture = Fixtures.fixtureJar(dir);
    }

    @Test
    void jsonHasCountsAndFindings() throws Exception {
        JsonNode json = new ObjectMapper()
                .readTree(Auditor.forTargetJdk(25)
                        .audit(List.of(fixture.toString()))
                        .toJson());
        assertEquals(
                List.of(
                        "tool",
                        "version",
                        "target_jdk",
                        "inputs",
                        "classes",
                        "bytes",
                        "seconds",
                        "mb_per_second",
                        "counts",
                        "findings",
                        "suppressed",
                        "problems"),
                fields(json));
        assertEquals(25, json.get("target_jdk").asInt());
        assertEquals(2, json.get("counts").get("error").asInt(), "only the class initializers stay errors on 25");
        assertEquals(14, json.get("findings").size(), "one per hazard marked in the fixtures");
        JsonNode first = json.get("findings").get(0);
        assertEquals(
                List.of(
                        "rule",
                        "severity",
                        "class",
                        "member",
                        "descriptor",
                        "source_file",
                        "line",
                        "message",
                        "path",
                        "input"),
                fields(first));
        assertEquals("error", first.get("severity").asText());
    }

    @Test
    void writesValidSarif210() throws Exception {
        JsonNode log = new ObjectMapper()
                .readTree(Auditor.forTargetJdk(21)
                        .audit(List.of(fixture.toString()))
                        .toSarif());
        assertEquals("2.1.0", log.get("version").asText());
        assertEquals(
                "https://json.schemastore.org/sarif-2.1.0.json",
                log.get("$schema").asText());
        assertEquals(1, log.get("runs").size());
        JsonNode run = log.get("runs").get(0);
        JsonNode driver = run.get("tool").get("driver");
        assertEquals("weft-audit", driver.get("name").asText());
        JsonNode rules = driver.get("rules");
        assertEquals(Rule.values().length, rules.size());
        for (Rule r : Rule.values()) {
            JsonNode rule = rules.get(r.ordinal());
            assertEquals(r.id(), rule.get("id").asText());
            assertTrue(rule.get("shortDescription").get("text").asText().length() > 10);
            assertTrue(rule.get("help").get("text").asText().length() > 10);
        }
        JsonNode results = run.get("results");
        assertEquals(14, results.size(), "one per hazard marked in the fixtures");
        Set<String> levels = Set.of("error", "warning", "note");
        for (JsonNode result : results) {
            String id = result.get("ruleId").asText();
            assertEquals(
                    id, rules.get(result.get("ruleIndex").asInt()).get("id").asText(), "ruleIndex points at ruleId");
            assertTrue(levels.contains(result.get("level").asText()));
            assertTrue(result.get("message").get("text").asText().startsWith("dev.weft.audit.fixture."));
            JsonNode physical = result.get("locations").get(0).get("physicalLocation");
            assertTrue(physical.get("artifactLocation").get("uri").asText().startsWith("dev/weft/audit/fixture/"));
            assertTrue(physical.get("artifactLocation").get("uri").asText().endsWith(".java"));
            if (physical.has("region")) {
                assertTrue(physical.get("region").get("startLine").asInt() > 0);
            }
            assertTrue(result.get("locations")
                    .get(0)
                    .get("logicalLocations")
                    .get(0)
                    .get("fullyQualifiedName")
                    .asText()
                    .startsWith("dev.weft.audit.fixture."));
        }
        JsonNode sync = results.findParents("ruleId").stream()
                .filter(r -> r.get("ruleId").asText().equals("synchronized-blocking"))
                .findFirst()
                .orElseThrow();
        assertEquals("error", sync.get("level").asText(), "an error when the target is JDK 21");
    }

    private static List<String> fields(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
