package dev.weft.lab.run;

import dev.weft.lab.Jvm;
import dev.weft.lab.LabResult;
import dev.weft.lab.Mode;
import dev.weft.lab.ScenarioResult;
import dev.weft.lab.report.Comparison;
import dev.weft.lab.report.HtmlReport;
import dev.weft.lab.report.Json;
import dev.weft.lab.report.MarkdownReport;
import dev.weft.lab.report.TextReport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs scenarios, each in a JVM of its own, shows their progress and tables, and writes
 * {@code results.json}, {@code report.md} and {@code report.html}.
 *
 * <p>A scenario that throws, exits without a result or runs past its timeout is reported as
 * failed with its error; the others still run, and {@link #run} returns 1. A scenario past its
 * timeout is ended by PID together with every process it started.
 */
public final class LabRunner {

    /**
     * What to run.
     *
     * @param mode the sizes
     * @param only scenario names to run, or empty for all
     * @param out     the folder reports go to
     * @param compare the output folder of a previous run to compare every variant with, or null
     */
    public record Options(Mode mode, List<String> only, Path out, Path compare) {

        /** Options without a comparison. */
        public Options(Mode mode, List<String> only, Path out) {
            this(mode, only, out, null);
        }
    }

    private final PrintWriter console;
    private final Registry registry;
    private final AtomicReference<Process> current = new AtomicReference<>();

    /** A runner of the lab's own scenarios that prints to {@code console}. */
    public LabRunner(PrintWriter console) {
        this(console, Registry.load());
    }

    /** A runner of the scenarios in {@code registry} that prints to {@code console}. */
    public LabRunner(PrintWriter console, Registry registry) {
        this.console = console;
        this.registry = registry;
    }

    /**
     * Runs the selected scenarios and writes the reports.
     *
     * @return 0 when every scenario ran to the end, 1 otherwise
     * @throws IllegalArgumentException for an unknown scenario name (before anything runs)
     */
    public int run(Options options) throws IOException {
        List<Descriptor> selected = options.only().isEmpty() ? registry.all() : registry.select(options.only());
        // Read before anything runs: a wrong folder should not cost a whole lab run.
        LabResult previous = options.compare() == null ? null : Comparison.readPrevious(options.compare());
        Path out = Files.createDirectories(options.out());
        String jdk = System.getProperty("java.runtime.version") + " (" + System.getProperty("java.vendor") + ")";
        int cores = Runtime.getRuntime().availableProcessors();
        String started = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        long runStart = System.nanoTime();
        console.printf("weft lab: %s mode, JDK %s, %d cores, %d scenario%s -> %s%n",
                options.mode(), jdk, cores, selected.size(), selected.size() == 1 ? "" : "s", out);

        Thread cleanup = new Thread(() -> {
            Process p = current.get();
            if (p != null) {
                Jvm.stop(p);
            }
        });
        Runtime.getRuntime().addShutdownHook(cleanup);
        List<ScenarioResult> results = new ArrayList<>();
        try {
            for (int i = 0; i < selected.size(); i++) {
                Descriptor d = selected.get(i);
                console.printf("%n[%d/%d] %s: %s (article %s, own JVM)%n", i + 1, selected.size(), d.name(), d.title(), d.article());
                ScenarioResult r = runIsolated(d, options.mode(), out, Jvm.java(), d.name());
                report(results, previous == null ? r : Comparison.compare(r, previous), d, options.mode());
                if (OTHER_JDK_SCENARIOS.contains(d.name())) {
                    for (String java : otherJdks()) {
                        console.printf("%n[%d/%d] %s again, on %s (own JVM)%n", i + 1, selected.size(), d.name(), java);
                        ScenarioResult other = runIsolated(d, options.mode(), out, java, d.name() + "-" + Math.abs(java.hashCode()));
                        report(results, previous == null ? other : Comparison.compare(other, previous), d, options.mode());
                    }
                }
            }
        } finally {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        }

        LabResult lab = new LabResult(LabResult.FORMAT_VERSION, jdk, cores, options.mode().toString(), started,
                seconds(runStart), options.compare() == null ? null : options.compare().toString(), results);
        console.printf("%n");
        console.print(TextReport.verdicts(lab, colour()));
        Json.write(out.resolve("results.json"), lab);
        MarkdownReport.write(out.resolve("report.md"), lab);
        HtmlReport.write(out.resolve("report.html"), lab);
        console.printf("%nwrote %s, %s and %s%n", out.resolve("results.json"), out.resolve("report.md"), out.resolve("report.html"));
        List<String> failed = results.stream().filter(r -> !r.ok()).map(ScenarioResult::name).toList();
        if (!failed.isEmpty()) {
            console.printf("%d scenario%s failed: %s%n", failed.size(), failed.size() == 1 ? "" : "s", String.join(", ", failed));
            return 1;
        }
        return 0;
    }

    /**
     * Scenarios that also run on every other JDK the launcher found ({@code weft.lab.other.jdks}):
     * article 001's pinning differs between JDK 21 and 24+, so its report puts them side by side.
     */
    static final List<String> OTHER_JDK_SCENARIOS = List.of("pinning");

    /**
     * The java executables of other JDKs to run {@link #OTHER_JDK_SCENARIOS} on: the system
     * property {@code weft.lab.other.jdks}, comma-separated (the launcher sets it to every JDK >= 21
     * installed or cached besides the one the lab runs on; it downloads nothing for it).
     */
    static List<String> otherJdks() {
        String v = System.getProperty("weft.lab.other.jdks", "");
        return java.util.Arrays.stream(v.split(",")).map(String::strip).filter(x -> !x.isEmpty()).toList();
    }

    private void report(List<ScenarioResult> results, ScenarioResult r, Descriptor d, Mode mode) {
        results.add(r);
        Integer budget = d.budgetSeconds(mode);
        console.printf("      %s in %.1f s%s%n%n", r.ok() ? "done" : "FAILED", r.seconds(),
                budget == null ? "" : String.format(Locale.ROOT, " (budget %d s%s)", budget,
                        r.seconds() > budget ? ", OVER BUDGET" : ""));
        console.print(TextReport.scenario(r));
    }

    private ScenarioResult runIsolated(Descriptor d, Mode mode, Path out, String java, String workName) throws IOException {
        Path work = Files.createDirectories(out.resolve("work").resolve(workName));
        Path resultFile = work.resolve("result.json");
        Path stderr = work.resolve("stderr.log");
        Files.deleteIfExists(resultFile);
        List<String> command = Jvm.command(java, d.jvmArgs(), System.getProperty("java.class.path"),
                ScenarioMain.class.getName(), List.of(d.name(), mode.toString(), resultFile.toString(), work.toString(), registry.folder()));
        long start = System.nanoTime();
        Process p = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        current.set(p);
        Thread relay = Thread.ofPlatform().name("weft-lab-relay").daemon(true).start(() -> relay(p));
        try {
            int timeout = d.timeoutSeconds(mode);
            if (!p.waitFor(timeout, TimeUnit.SECONDS)) {
                Jvm.stop(p);
                return Results.missing(d, mode, "timed out after " + timeout + " s (its limit in " + mode
                        + " mode); stderr: " + tail(stderr), seconds(start));
            }
            relay.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Jvm.stop(p);
            Thread.currentThread().interrupt();
            return Results.missing(d, mode, "interrupted", seconds(start));
        } finally {
            current.set(null);
        }
        int exit = p.exitValue();
        if (!Files.exists(resultFile)) {
            return Results.missing(d, mode, "its JVM exited with status " + exit + " without a result; stderr: " + tail(stderr),
                    seconds(start));
        }
        ScenarioResult r = Json.read(resultFile, ScenarioResult.class).withSeconds(seconds(start), d.budgetSeconds(mode));
        return exit == 0 || !r.ok() ? r : r.failed("its JVM exited with status " + exit, r.seconds());
    }

    private void relay(Process p) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                console.println("      " + line);
            }
        } catch (IOException e) {
            console.println("      (progress lost: " + e.getMessage() + ")");
        }
    }

    /** Colour on a terminal, unless NO_COLOR is set (https://no-color.org). */
    private static boolean colour() {
        java.io.Console c = System.console();
        if (c == null || System.getenv("NO_COLOR") != null || "dumb".equals(System.getenv("TERM"))) {
            return false;
        }
        try { // JDK 22+ returns a console even when output is redirected; isTerminal tells
            return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(c);
        } catch (ReflectiveOperationException e) {
            return true; // JDK 21: System.console() is null unless on a terminal
        }
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return lines.isEmpty() ? "(empty)"
                    : String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    private static double seconds(long start) {
        return (System.nanoTime() - start) / 1e9;
    }
}
