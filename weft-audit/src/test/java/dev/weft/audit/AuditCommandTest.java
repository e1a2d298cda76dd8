package dev.weft.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class AuditCommandTest {

    @TempDir
    static Path dir;
    static Path fixture;
    static Path clean;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @BeforeAll
    static void jars() throws Exception {
        fixture = Fixtures.fixtureJar(dir);
        clean = Fixtures.jar(dir.resolve("clean.jar"),
                Map.of(Fixtures.PACKAGE + "Clean.class", Fixtures.classes().get(Fixtures.PACKAGE + "Clean.class")));
    }

    private int run(String... args) {
        CommandLine cli = new CommandLine(new AuditCommand());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void printsTextGroupedBySeverityAndExitsZeroByDefault() throws Exception {
        assertEquals(0, run(fixture.toString(), "--target-jdk", "21"));
        String text = out.toString();
        assertTrue(text.startsWith("weft audit: " + Fixtures.classes().size() + " classes"), text);
        assertTrue(text.contains("target JDK 21: 5 errors, 4 warnings, 1 info"), text);
        int error = text.indexOf("\nerror (5)\n");
        int warning = text.indexOf("\nwarning (4)\n");
        int info = text.indexOf("\ninfo (1)\n");
        assertTrue(error > 0 && error < warning && warning < info, text);
        assertTrue(text.contains("  dev.weft.audit.fixture.SyncMethod.take (SyncMethod.java:12)  [synchronized-blocking]\n"), text);
        assertTrue(text.contains("\nwhat the rules mean\n"), text);
    }

    @Test
    void failOnSetsTheExitStatus() {
        assertEquals(1, run(fixture.toString(), "--fail-on", "error"));
        assertEquals(0, run(clean.toString(), "--fail-on", "info"), "nothing found in the near misses");
        assertEquals(1, run(fixture.toString(), "--fail-on", "warning", "--target-jdk", "25"),
                "on 25 the worst are errors in class initializers");
        assertEquals(0, run(fixture.toString(), "--fail-on", "none"));
    }

    @Test
    void writesJsonWithCountsAndFindings() throws Exception {
        Path file = dir.resolve("audit.json");
        assertEquals(0, run(fixture.toString(), "--format", "json", "--output", file.toString(), "--target-jdk", "25"));
        assertTrue(err.toString().contains("10 findings written to " + file), err.toString());
        JsonNode json = new ObjectMapper().readTree(Files.readString(file));
        assertEquals(List.of("tool", "version", "target_jdk", "inputs", "classes", "bytes", "seconds", "mb_per_second",
                "counts", "findings", "problems"), fields(json));
        assertEquals(25, json.get("target_jdk").asInt());
        assertEquals(2, json.get("counts").get("error").asInt(), "only the class initializers stay errors on 25");
        assertEquals(10, json.get("findings").size());
        JsonNode first = json.get("findings").get(0);
        assertEquals(List.of("rule", "severity", "class", "member", "descriptor", "source_file", "line", "message", "path",
                "input"), fields(first));
        assertEquals("error", first.get("severity").asText());
    }

    @Test
    void writesValidSarif210() throws Exception {
        assertEquals(0, run(fixture.toString(), "--format", "SARIF", "--target-jdk", "21"));
        JsonNode log = new ObjectMapper().readTree(out.toString());
        assertEquals("2.1.0", log.get("version").asText());
        assertEquals("https://json.schemastore.org/sarif-2.1.0.json", log.get("$schema").asText());
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
        assertEquals(10, results.size());
        Set<String> levels = Set.of("error", "warning", "note");
        for (JsonNode result : results) {
            String id = result.get("ruleId").asText();
            assertEquals(id, rules.get(result.get("ruleIndex").asInt()).get("id").asText(), "ruleIndex points at ruleId");
            assertTrue(levels.contains(result.get("level").asText()));
            assertTrue(result.get("message").get("text").asText().startsWith("dev.weft.audit.fixture."));
            JsonNode physical = result.get("locations").get(0).get("physicalLocation");
            assertTrue(physical.get("artifactLocation").get("uri").asText().startsWith("dev/weft/audit/fixture/"));
            assertTrue(physical.get("artifactLocation").get("uri").asText().endsWith(".java"));
            if (physical.has("region")) {
                assertTrue(physical.get("region").get("startLine").asInt() > 0);
            }
            assertTrue(result.get("locations").get(0).get("logicalLocations").get(0).get("fullyQualifiedName").asText()
                    .startsWith("dev.weft.audit.fixture."));
        }
        JsonNode sync = results.findParents("ruleId").stream()
                .filter(r -> r.get("ruleId").asText().equals("synchronized-blocking")).findFirst().orElseThrow();
        assertEquals("error", sync.get("level").asText(), "an error when the target is JDK 21");
    }

    @Test
    void badArgumentsExitTwoNamingTheProblem() {
        assertEquals(2, run(dir.resolve("missing.jar").toString()));
        assertTrue(err.toString().contains("no such file or folder: "), err.toString());
        assertEquals(2, run(fixture.toString(), "--target-jdk", "17"));
        assertTrue(err.toString().contains("--target-jdk: target JDK 17 has no virtual threads; give 21 or newer"), err.toString());
        assertEquals(2, run(fixture.toString(), "--format", "xml"));
        assertTrue(err.toString().contains("unknown format 'xml'; use text, json or sarif"), err.toString());
        assertEquals(2, run(fixture.toString(), "--fail-on", "fatal"));
        assertTrue(err.toString().contains("--fail-on: unknown severity 'fatal'; use error, warning, info or none"), err.toString());
        assertEquals(2, run());
    }

    private static List<String> fields(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
