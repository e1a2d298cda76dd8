package dev.weft.lab.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.lab.LabResult;
import dev.weft.lab.Mode;
import dev.weft.lab.ScenarioResult;
import dev.weft.lab.Variant;
import dev.weft.lab.report.Json;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runner against scenarios that succeed, throw, exit, hang and leak, all in one run. */
class LabRunnerTest {

    private static final Registry REGISTRY =
            Registry.load("META-INF/weft/test-scenarios/", LabRunnerTest.class.getClassLoader());

    @TempDir
    static Path out;

    static int exit;
    static String console;
    static Map<String, ScenarioResult> results;

    @BeforeAll
    static void runEveryTestScenarioOnce() throws Exception {
        StringWriter text = new StringWriter();
        exit = new LabRunner(new PrintWriter(text, true), REGISTRY)
                .run(new LabRunner.Options(Mode.SMOKE, List.of(), out));
        console = text.toString();
        dev.weft.lab.ResultsSchema.assertValid(out.resolve("results.json"));
        LabResult lab = Json.read(out.resolve("results.json"), LabResult.class);
        assertEquals("smoke", lab.mode());
        results = lab.scenarios().stream().collect(Collectors.toMap(ScenarioResult::name, Function.identity()));
    }

    @Test
    void everyScenarioRanInArticleOrderAndTheLabFailed() {
        assertEquals(1, exit, console);
        assertEquals(REGISTRY.names(), List.of("ok", "throws", "exits", "hangs", "leaves-helper"));
        assertEquals(5, results.size());
        assertTrue(console.contains("3 scenarios failed: throws, exits, hangs"), console);
    }

    @Test
    void aGoodScenarioReportsEverythingItMeasured() {
        ScenarioResult ok = results.get("ok");
        assertTrue(ok.ok());
        assertNull(ok.error());
        assertEquals("a made-up limit of 10 things/s", ok.limitNote());
        assertEquals(List.of("a note"), ok.notes());
        Variant v = ok.variants().getFirst();
        assertEquals("only", v.name());
        assertEquals(0.5, v.ratio());
        assertEquals(20.0, v.published());
        assertEquals(1, v.extra().get("k"));
    }

    @Test
    void theConsoleShowsOneLinePerScenarioThenTheVerdictThenTheDetails() throws Exception {
        List<String> lines = console.lines().toList();
        assertTrue(lines.getFirst().startsWith("weft lab: smoke mode, "), console);
        assertEquals(
                List.of(
                        "[1/5] ok ... done",
                        "[2/5] throws ... FAILED",
                        "[3/5] exits ... FAILED",
                        "[4/5] hangs ... FAILED",
                        "[5/5] leaves-helper ... done"),
                lines.subList(1, 6).stream()
                        .map(l -> l.replaceAll(" in [0-9.]+ s.*", ""))
                        .toList(),
                console);
        assertTrue(
                lines.get(2).endsWith(": java.lang.IllegalStateException: the scenario broke on purpose"),
                lines.get(2));
        assertFalse(console.contains("measuring"), "progress lines stay off a console that is not a terminal");
        String kept = Files.readString(out.resolve("work/ok/" + LabRunner.PROGRESS_LOG));
        assertTrue(
                kept.matches(" *[0-9]+\\.[0-9] s  measuring\n"),
                "they are kept, with the seconds since the JVM's start: " + kept);
        int verdict = console.indexOf(
                "\nverdict: 0 of 1 goal met, 1 not judged (smoke run); 2 of 5 scenarios ran to the end\n");
        int goalRow = console.indexOf("\nok        a made-up goal");
        int details = console.indexOf("\nok: test scenario ok\n");
        int times = console.indexOf("\ntime: ok ");
        int total = console.indexOf("\ntotal: ");
        int wrote = console.indexOf("\nwrote ");
        assertTrue(
                verdict > 0
                        && verdict < goalRow
                        && goalRow < details
                        && details < times
                        && times < total
                        && total < wrote,
                console);
        assertFalse(console.contains("quick lab's budget"), "a smoke run has no total budget: " + console);
    }

    @Test
    void aThrowingScenarioFailsWithItsErrorAndKeepsWhatItMeasured() {
        ScenarioResult r = results.get("throws");
        assertFalse(r.ok());
        assertTrue(r.error().contains("IllegalStateException: the scenario broke on purpose"), r.error());
        assertEquals("before-the-failure", r.variants().getFirst().name());
    }

    @Test
    void aScenarioWhoseJvmExitsWithoutAResultFailsWithItsStatusAndStderr() {
        ScenarioResult r = results.get("exits");
        assertFalse(r.ok());
        assertTrue(r.error().contains("exited with status 3 without a result"), r.error());
        assertTrue(r.error().contains("exiting with status 3 on purpose"), r.error());
    }

    @Test
    void aHangingScenarioTimesOutAndItsHelperJvmIsEnded() throws Exception {
        ScenarioResult r = results.get("hangs");
        assertFalse(r.ok());
        assertTrue(r.error().contains("timed out after 10 s"), r.error());
        assertHelperEnded("hangs");
    }

    @Test
    void aHelperJvmLeftRunningIsEndedWithItsScenario() throws Exception {
        assertTrue(results.get("leaves-helper").ok());
        assertHelperEnded("leaves-helper");
    }

    @Test
    void reportsAreWrittenEvenWhenScenariosFail() throws Exception {
        String md = Files.readString(out.resolve("report.md"));
        String html = Files.readString(out.resolve("report.html"));
        assertTrue(md.contains("## throws: test scenario throws") && md.contains("Status: **failed**"), md);
        assertTrue(html.contains("the scenario broke on purpose"), "errors appear in the HTML report");
        assertTrue(html.contains("<svg"), "charts are drawn");
    }

    private static void assertHelperEnded(String scenario) throws Exception {
        Path pidFile = out.resolve("work").resolve(scenario).resolve("helper.pid");
        assertTrue(Files.exists(pidFile), "the scenario started its helper JVM");
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        var helper = ProcessHandle.of(pid);
        if (helper.isPresent()) {
            // Ending is asynchronous for the OS; onExit completes once the process is gone.
            helper.get().onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "helper " + pid + " still alive");
        assertNotNull(pidFile);
    }
}
