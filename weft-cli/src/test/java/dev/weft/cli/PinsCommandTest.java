package dev.weft.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PinsCommandTest {

    private static final String JAVA =
            Path.of(System.getProperty("java.home"), "bin", "java").toString();
    private static final boolean JDK_24_PLUS = Runtime.version().feature() >= 24;
    private static Process target;
    private static long pid;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeAll
    static void startTarget() throws IOException {
        target = new ProcessBuilder(JAVA, "-cp", System.getProperty("java.class.path"), PinningTarget.class.getName())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        String line =
                new BufferedReader(new InputStreamReader(target.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertTrue(line != null && line.startsWith("ready "), "the target JVM did not start: " + line);
        pid = Long.parseLong(line.substring("ready ".length()));
    }

    @AfterAll
    static void stopTarget() throws Exception {
        target.getOutputStream().close();
        if (!target.waitFor(30, TimeUnit.SECONDS)) {
            target.destroyForcibly().waitFor(); // it started nothing of its own
        }
    }

    private int run(String... args) {
        return Main.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void recordsTheTargetsPinsAsJsonWithItsSchedulerHealth() throws Exception {
        assertEquals(0, run("pins", Long.toString(pid), "--for", "2s", "--json"), err());
        assertTrue(
                err().contains("recording pinned virtual threads in JVM " + pid + " (" + PinningTarget.class.getName()),
                err());
        JsonNode report = new ObjectMapper().readTree(out());
        assertEquals(pid, report.get("pid").asLong());
        assertEquals(PinningTarget.class.getName(), report.get("jvm").asText());
        assertEquals(0.0, report.get("threshold_ms").asDouble());
        assertTrue(report.get("pins").asLong() >= 1, "it pins every 20 ms: " + out());
        JsonNode site = report.get("sites").get(0);
        assertTrue(site.get("frames").findValuesAsText("class").contains("dev.weft.pin.ProbeInit"), site.toString());
        if (JDK_24_PLUS) {
            assertEquals(
                    "VM call to dev.weft.pin.ProbeInit.<clinit> on stack",
                    site.get("reason").asText());
        }
        JsonNode scheduler = report.get("scheduler");
        assertTrue(scheduler.get("samples").asInt() >= 2, scheduler.toString());
        assertTrue(scheduler.get("peak_platform_threads").asInt() >= 2, "the target's thread counters: " + scheduler);
        assertEquals(JDK_24_PLUS, scheduler.get("scheduler_available").asBoolean());
    }

    @Test
    void printsTextAndLeavesNoRecordingBehind() throws Exception {
        assertEquals(0, run("pins", Long.toString(pid), "--for", "1s"), err());
        String text = out();
        assertTrue(text.startsWith("JVM " + pid + " (" + PinningTarget.class.getName() + ", Java "), text);
        assertTrue(text.contains(" pins at ") || text.contains(" pin at "), text);
        assertTrue(text.contains("at dev.weft.pin.ProbeInit.<clinit>"), text);
        assertTrue(text.contains("\nscheduler: "), text);
        assertNoWeftRecording();
    }

    @Test
    void leavesNoListeningSocketNorRecordingBehind() throws Exception {
        java.util.Set<String> before = listeningSockets(pid);
        assertEquals(0, run("pins", Long.toString(pid), "--for", "1s"), err());
        assertTrue(out().contains("at dev.weft.pin.ProbeInit.<clinit>"), out());
        assertEquals(before, listeningSockets(pid), "weft pins opened a listening socket in the target");
        assertNoWeftRecording();
    }

    @Test
    void anInterruptedRunStopsItsRecordingAndOpensNothing() throws Exception {
        java.util.Set<String> before = listeningSockets(pid);
        java.util.concurrent.atomic.AtomicInteger code = new java.util.concurrent.atomic.AtomicInteger(-1);
        Thread runner = Thread.ofPlatform()
                .name("weft-pins-under-test")
                .start(() -> code.set(run("pins", Long.toString(pid), "--for", "10m")));
        awaitWeftRecording(true);
        runner.interrupt();
        runner.join(TimeUnit.SECONDS.toMillis(60));
        assertFalse(runner.isAlive(), "weft pins did not end when interrupted");
        assertEquals(1, code.get(), err());
        assertTrue(err().contains("weft pins: interrupted; the recording in JVM " + pid + " was stopped"), err());
        assertNoWeftRecording();
        assertEquals(before, listeningSockets(pid), "weft pins opened a listening socket in the target");
    }

    @Test
    void aWeftPinsProcessEndedBySigtermStopsItsRecording() throws Exception {
        // A separate weft JVM without --add-exports: it drives the target through the jcmd program.
        java.util.Set<String> before = listeningSockets(pid);
        Path tmp = java.nio.file.Files.createTempDirectory("weft-pins-test-");
        Process weft = new ProcessBuilder(
                        JAVA,
                        "-Djava.io.tmpdir=" + tmp,
                        "-cp",
                        System.getProperty("java.class.path"),
                        Main.class.getName(),
                        "pins",
                        Long.toString(pid),
                        "--for",
                        "10m")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            awaitWeftRecording(true);
        } finally {
            weft.destroy(); // SIGTERM, as Ctrl-C's SIGINT: the shutdown hook stops the recording
            assertTrue(weft.waitFor(60, TimeUnit.SECONDS), "weft pins did not end on SIGTERM");
        }
        assertNoWeftRecording();
        assertEquals(before, listeningSockets(pid), "weft pins opened a listening socket in the target");
        try (var left = java.nio.file.Files.list(tmp)) {
            assertEquals(java.util.List.of(), left.toList(), "weft pins left files in its temporary folder");
        }
        java.nio.file.Files.delete(tmp);
    }

    @Test
    void schedulerLinesAreReadFromTheJdksOwnOutput() {
        var s = new RemoteScheduler(null, null)
                .parse(
                        java.time.Instant.EPOCH,
                        "java.util.concurrent.ForkJoinPool@19a935dc[Running,"
                                + " parallelism = 2, size = 3, active = 1, running = 1, steals = 7, tasks = 4, submissions = 5]",
                        10,
                        12,
                        30);
        assertTrue(s.schedulerAvailable());
        assertEquals(2, s.parallelism());
        assertEquals(3, s.poolSize());
        assertEquals(1, s.mountedVirtualThreads());
        assertEquals(9, s.queuedVirtualThreads());
        assertEquals(10, s.livePlatformThreads());
        var old = new RemoteScheduler(null, null)
                .parse(
                        java.time.Instant.EPOCH,
                        "java.lang.IllegalArgumentException: Unknown diagnostic command",
                        10,
                        12,
                        30);
        assertFalse(old.schedulerAvailable());
        assertEquals(RemoteScheduler.NEEDS_24, old.unavailableReason());
        assertEquals(
                12, PerfCounters.counter("java.threads.live=10\njava.threads.livePeak=12\n", "java.threads.livePeak"));
        assertEquals(-1, PerfCounters.counter("java.threads.live=10\n", "java.threads.started"));
    }

    /** The target's TCP sockets in state LISTEN (local address:port), from /proc: its own socket inodes only. */
    private static java.util.Set<String> listeningSockets(long pid) throws IOException {
        java.util.Set<String> inodes = new java.util.HashSet<>();
        try (var fds = java.nio.file.Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    String link = java.nio.file.Files.readSymbolicLink(fd).toString();
                    if (link.startsWith("socket:[")) {
                        inodes.add(link.substring("socket:[".length(), link.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // an fd closed while listing: not a listening socket of interest
                }
            }
        }
        java.util.Set<String> listening = new java.util.TreeSet<>();
        for (String table : new String[] {"tcp", "tcp6"}) {
            // the table is the network namespace's: read it once, keep the target's inodes
            java.util.List<String> lines =
                    java.nio.file.Files.readAllLines(Path.of("/proc", Long.toString(pid), "net", table));
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.trim().split("\\s+");
                if (f[3].equals("0A") && inodes.contains(f[9])) {
                    listening.add(table + " " + f[1]);
                }
            }
        }
        return listening;
    }

    private static String jfrCheck() throws Exception {
        Process check = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                        Long.toString(pid),
                        "JFR.check")
                .redirectErrorStream(true)
                .start();
        String recordings = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(check.waitFor(60, TimeUnit.SECONDS));
        return recordings;
    }

    private static void assertNoWeftRecording() throws Exception {
        String recordings = jfrCheck();
        assertFalse(recordings.contains("weft-pins"), "the recording is stopped in the target:\n" + recordings);
    }

    private static void awaitWeftRecording(boolean running) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (jfrCheck().contains("weft-pins") != running) {
            assertTrue(System.nanoTime() < deadline, "weft pins did not start its recording in 60 s");
            Thread.sleep(100);
        }
    }

    @Test
    void aPidThatIsNotRunningIsNamed() throws Exception {
        Process gone = new ProcessBuilder(JAVA, "-version")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        gone.waitFor();
        assertEquals(1, run("pins", Long.toString(gone.pid()), "--for", "1s"));
        assertTrue(
                err().contains("no process with pid " + gone.pid() + " is running; jps -l lists the running JVMs"),
                err());
    }

    @Test
    void aProcessThatIsNotAJvmIsNamed() throws Exception {
        Process sleep = new ProcessBuilder("sleep", "30").start();
        try {
            assertEquals(1, run("pins", Long.toString(sleep.pid()), "--for", "1s"));
            assertTrue(err().contains("cannot attach to process " + sleep.pid()), err());
            assertTrue(err().contains("It must be a JVM (Java 21+) that allows attaching"), err());
        } finally {
            sleep.destroy();
            sleep.waitFor();
        }
    }

    @Test
    void badArgumentsExitTwoWithTheUsage() {
        assertEquals(2, run("pins", "java"));
        assertTrue(
                err().contains(
                                "usage: java -jar weft-cli-<version>.jar pins <pid> [--for DURATION] [--depth N] [--json]"),
                err());
        assertEquals(2, run("pins", "1", "--for", "soon"));
        assertTrue(err().contains("'soon' is not a duration; write e.g. 500ms, 30s, 5m, 1h or PT30S"), err());
        assertEquals(2, run("pins", "1", "--for", "0s"));
        assertTrue(err().contains("--for must be more than 0"), err());
        assertEquals(2, run("pins"));
        assertEquals(2, run("pins", "1", "--depth", "0"));
        assertTrue(err().contains("--depth must be 1 to 2048 frames"), err());
    }

    @Test
    void depthSetsTheFramesShownPerSite() throws Exception {
        assertEquals(0, run("pins", Long.toString(pid), "--for", "1s", "--depth", "2", "--json"), err());
        JsonNode sites = new ObjectMapper().readTree(out()).get("sites");
        assertTrue(sites.size() >= 1, out());
        for (JsonNode site : sites) {
            assertEquals(2, site.get("frames").size(), site.toString());
        }
    }

    @Test
    void durationsReadTheWayPeopleWriteThem() {
        var c = new PinsCommand.DurationConverter();
        assertEquals(java.time.Duration.ofMillis(500), c.convert("500ms"));
        assertEquals(java.time.Duration.ofSeconds(30), c.convert("30s"));
        assertEquals(java.time.Duration.ofSeconds(90), c.convert("1.5m"));
        assertEquals(java.time.Duration.ofHours(2), c.convert("2h"));
        assertEquals(java.time.Duration.ofSeconds(30), c.convert("PT30S"));
    }

    @Test
    void attachFailuresSayWhatToDo() {
        Exception perm = new IOException("Permission denied");
        assertEquals(
                "JVM 42 belongs to user app and weft runs as dev; attaching needs the same user: run sudo -u app"
                        + " ./weft pins 42",
                PinsCommand.attachFailure(42, "app", "dev", "java", perm));
        assertTrue(PinsCommand.attachFailure(42, "dev", "dev", "java", perm)
                .startsWith("no permission to attach to JVM 42"));
        assertEquals(
                "no JVM with pid 42 is running; jps -l lists the running JVMs",
                PinsCommand.attachFailure(42, null, "dev", null, new IOException("non existent JVM pid: 42")));
    }
}
