package dev.weft.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.audit.Fixtures;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The audit's command line: arguments, output, exit status. The report formats are AuditReportTest's (weft-audit). */
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
        clean = Fixtures.jar(
                dir.resolve("clean.jar"),
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
        assertTrue(text.contains("target JDK 21: 8 errors, 5 warnings, 1 info"), text);
        int error = text.indexOf("\nerror (8)\n");
        int warning = text.indexOf("\nwarning (5)\n");
        int info = text.indexOf("\ninfo (1)\n");
        assertTrue(error > 0 && error < warning && warning < info, text);
        assertTrue(
                text.contains(
                        "  dev.weft.audit.fixture.SyncMethod.take (SyncMethod.java:12)  [synchronized-blocking]\n"),
                text);
        assertTrue(text.contains("\nwhat the rules mean\n"), text);
    }

    @Test
    void aBaselineAndExclusionsSuppressFindingsSoFailOnPasses() throws Exception {
        Path baseline = dir.resolve("baseline.json");
        assertEquals(
                1,
                run(
                        fixture.toString(),
                        "--target-jdk",
                        "21",
                        "--fail-on",
                        "error",
                        "--write-baseline",
                        baseline.toString()));
        assertTrue(err.toString().contains("baseline of 14 findings written to " + baseline), err.toString());
        assertEquals(
                0,
                run(fixture.toString(), "--target-jdk", "21", "--fail-on", "error", "--baseline", baseline.toString()));
        assertTrue(
                out.toString().contains("0 errors, 0 warnings, 0 info\n14 more suppressed (not counted)"),
                out.toString());

        out.getBuffer().setLength(0);
        assertEquals(
                1,
                run(
                        fixture.toString(),
                        "--target-jdk",
                        "21",
                        "--fail-on",
                        "error",
                        "--exclude",
                        "dev.weft.audit.fixture.Sync*=reviewed",
                        "--exclude",
                        "dev.weft.audit.fixture.Waiter"));
        assertTrue(out.toString().contains("5 errors"), "3 of the 8 errors excluded: " + out);
        assertTrue(out.toString().contains("excluded by dev.weft.audit.fixture.Sync*: reviewed"), out.toString());

        assertEquals(
                2,
                run(
                        fixture.toString(),
                        "--baseline",
                        dir.resolve("missing.json").toString()));
        assertTrue(err.toString().contains("--baseline: no baseline file"), err.toString());
    }

    @Test
    void failOnSetsTheExitStatus() {
        assertEquals(1, run(fixture.toString(), "--fail-on", "error"));
        assertEquals(0, run(clean.toString(), "--fail-on", "info"), "nothing found in the near misses");
        assertEquals(
                1,
                run(fixture.toString(), "--fail-on", "warning", "--target-jdk", "25"),
                "on 25 the worst are errors in class initializers");
        assertEquals(0, run(fixture.toString(), "--fail-on", "none"));
    }

    @Test
    void writesTheChosenFormatToTheOutputFile() throws Exception {
        Path file = dir.resolve("audit.json");
        assertEquals(0, run(fixture.toString(), "--format", "json", "--output", file.toString(), "--target-jdk", "25"));
        assertTrue(err.toString().contains("14 findings written to " + file), err.toString());
        assertEquals("", out.toString(), "nothing on standard output");
        JsonNode json = new ObjectMapper().readTree(Files.readString(file));
        assertEquals(25, json.get("target_jdk").asInt());
        assertEquals(14, json.get("findings").size());
        assertEquals(
                "2.1.0",
                new ObjectMapper()
                        .readTree(runToString(fixture.toString(), "--format", "SARIF"))
                        .get("version")
                        .asText(),
                "--format takes any case");
    }

    private String runToString(String... args) {
        out.getBuffer().setLength(0);
        assertEquals(0, run(args), err.toString());
        return out.toString();
    }

    @Test
    void badArgumentsExitTwoNamingTheProblem() {
        assertEquals(2, run(dir.resolve("missing.jar").toString()));
        assertTrue(err.toString().contains("no such file or folder: "), err.toString());
        assertEquals(2, run(fixture.toString(), "--target-jdk", "17"));
        assertTrue(
                err.toString().contains("--target-jdk: target JDK 17 has no virtual threads; give 21 or newer"),
                err.toString());
        assertEquals(2, run(fixture.toString(), "--format", "xml"));
        assertTrue(err.toString().contains("unknown format 'xml'; use text, json or sarif"), err.toString());
        assertEquals(2, run(fixture.toString(), "--fail-on", "fatal"));
        assertTrue(
                err.toString().contains("--fail-on: unknown severity 'fatal'; use error, warning, info or none"),
                err.toString());
        assertEquals(2, run());
        assertEquals(2, run(fixture.toString(), "--target-jdk", "99"));
        assertTrue(
                err.toString()
                        .contains(
                                "--target-jdk: target JDK 99 is newer than the pinning rules the audit knows; give 21 to "),
                err.toString());
    }

    @Test
    void badInputsExitTwoWithOneLineNamingTheFile() throws Exception {
        Path empty = Files.createDirectories(dir.resolve("unbuilt/target/classes"));
        Path text = Files.writeString(dir.resolve("x.jar"), "hello");
        byte[] whole = Files.readAllBytes(fixture);
        Path cut = Files.write(dir.resolve("cut.jar"), java.util.Arrays.copyOf(whole, whole.length - 100));
        for (Path bad : List.of(empty, text, cut)) {
            CliTest.Run r = CliTest.run("audit", bad.toString(), "--fail-on", "info"); // as java -jar runs it
            assertEquals(2, r.exit(), bad + ": " + r);
            assertEquals(1, r.err().lines().count(), r.err());
            assertTrue(r.err().startsWith("weft audit: " + bad + ": "), r.err());
        }
    }
}
