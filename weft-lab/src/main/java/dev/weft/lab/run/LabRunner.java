package dev.weft.lab.run;

import dev.weft.lab.ChildJvm;
import dev.weft.lab.Jvm;
import dev.weft.lab.LabResult;
import dev.weft.lab.Mode;
import dev.weft.lab.ScenarioResult;
import dev.weft.lab.report.Comparison;
import dev.weft.lab.report.HtmlReport;
import dev.weft.lab.report.Json;
import dev.weft.lab.report.MarkdownReport;
import dev.weft.lab.report.TextReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

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
        console.printf(
                "weft lab: %s mode, JDK %s, %d cores, %d scenario%s -> %s%n",
                options.mode(), jdk, cores, selected.size(), selected.size() == 1 ? "" : "s", out);
        Status status = new Status(console, terminal());

        List<ScenarioResult> results = new ArrayList<>();
        int runs = selected.stream()
                .mapToInt(d ->
                        onOtherJdks(d.name(), options.mode()) ? 1 + otherJdks().size() : 1)
                .sum();
        for (Descriptor d : selected) {
            List<String> javas = new ArrayList<>(List.of(Jvm.java()));
            if (onOtherJdks(d.name(), options.mode())) {
                javas.addAll(otherJdks());
            }
            for (int j = 0; j < javas.size(); j++) {
                String label = String.format(
                        Locale.ROOT,
                        "[%d/%d] %s%s",
                        results.size() + 1,
                        runs,
                        d.name(),
                        j == 0 ? "" : " on " + jdkName(javas.get(j)));
                status.start(label);
                ScenarioResult r = runIsolated(
                        d,
                        options.mode(),
                        out,
                        javas.get(j),
                        j == 0
                                ? d.name()
                                : d.name() + "-" + Math.abs(javas.get(j).hashCode()),
                        label,
                        status);
                r = previous == null ? r : Comparison.compare(r, previous);
                results.add(r);
                status.done(label, TextReport.progressLine(r));
            }
        }

        LabResult lab = new LabResult(
                LabResult.FORMAT_VERSION,
                jdk,
                cores,
                options.mode().toString(),
                started,
                seconds(runStart),
                options.compare() == null ? null : options.compare().toString(),
                results);
        Json.write(out.resolve("results.json"), lab);
        MarkdownReport.write(out.resolve("report.md"), lab);
        HtmlReport.write(out.resolve("report.html"), lab);
        console.printf("%n");
        boolean whole =
                options.only().isEmpty() || selected.size() == registry.all().size();
        console.print(TextReport.consoleSummary(
                lab, colour(), whole && options.mode() == Mode.QUICK ? QUICK_LAB_BUDGET_SECONDS : null));
        console.printf(
                "wrote %s, %s and %s (each scenario's progress: %s)%n",
                out.resolve("results.json"),
                out.resolve("report.md"),
                out.resolve("report.html"),
                out.resolve("work").resolve("<scenario>").resolve(PROGRESS_LOG));
        List<String> failed =
                results.stream().filter(r -> !r.ok()).map(ScenarioResult::name).toList();
        if (!failed.isEmpty()) {
            console.printf(
                    "%d scenario%s failed: %s%n",
                    failed.size(), failed.size() == 1 ? "" : "s", String.join(", ", failed));
            return 1;
        }
        return 0;
    }

    /**
     * The time the whole quick lab is designed to take on 2 cores, from the lab's start to its
     * reports: 5 minutes (4 until issue 26 gave the wave's new variants and the added rounds of
     * inconclusive goals their time). The scenarios' own budgets ({@code budget_quick_s}) add up to less, which
     * leaves room for the runner and the launcher.
     */
    public static final int QUICK_LAB_BUDGET_SECONDS = 300;

    /** The file, in each scenario's work folder, that keeps every progress line the scenario printed. */
    public static final String PROGRESS_LOG = "progress.log";

    /**
     * Scenarios that also run on every other JDK the launcher found ({@code weft.lab.other.jdks}),
     * and in which modes: article 001's pinning differs between JDK 21 and 24+, so its report puts
     * them side by side in every mode; the pool scenario's JDK 21 run (where synchronized-pool
     * freezes the scheduler) is part of {@code --full} only, since the quick lab's 5 minutes cannot
     * hold it ({@code ./weft lab --only pool --jdk 21} runs it alone).
     */
    static final Map<String, Set<Mode>> OTHER_JDK_SCENARIOS = Map.of(
            "pinning", EnumSet.allOf(Mode.class),
            "pool", EnumSet.of(Mode.FULL));

    /** Whether scenario {@code name} also runs on the other JDKs in {@code mode}. */
    static boolean onOtherJdks(String name, Mode mode) {
        return OTHER_JDK_SCENARIOS.getOrDefault(name, Set.of()).contains(mode);
    }

    /**
     * The java executables of other JDKs to run {@link #OTHER_JDK_SCENARIOS} on: the system
     * property {@code weft.lab.other.jdks}, comma-separated (the launcher sets it to every JDK >= 21
     * installed or cached besides the one the lab runs on; it downloads nothing for it).
     */
    static List<String> otherJdks() {
        String v = System.getProperty("weft.lab.other.jdks", "");
        return java.util.Arrays.stream(v.split(","))
                .map(String::strip)
                .filter(x -> !x.isEmpty())
                .toList();
    }

    /**
     * Runs one scenario in a JVM of its own, with the machine's state read before it starts (the lab
     * idle for half a second) and while it runs.
     */
    private ScenarioResult runIsolated(
            Descriptor d, Mode mode, Path out, String java, String workName, String label, Status status)
            throws IOException {
        MachineProbe.Before before;
        try {
            before = MachineProbe.before();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Results.missing(d, mode, "interrupted", 0);
        }
        MachineProbe.Watch watch =
                MachineProbe.during(before, Runtime.getRuntime().availableProcessors());
        ScenarioResult r;
        try {
            r = runProcess(d, mode, out, java, workName, label, status);
        } catch (IOException | RuntimeException e) {
            watch.stop();
            throw e;
        }
        return r.withMachine(watch.stop());
    }

    private ScenarioResult runProcess(
            Descriptor d, Mode mode, Path out, String java, String workName, String label, Status status)
            throws IOException {
        Path work = Files.createDirectories(out.resolve("work").resolve(workName));
        Path stderr = work.resolve("stderr.log");
        long start = System.nanoTime();
        // Each progress line after the seconds since the scenario's JVM was started (where its time goes);
        // on a terminal the latest one is shown too.
        PrintWriter progress =
                new PrintWriter(Files.newBufferedWriter(work.resolve(PROGRESS_LOG), StandardCharsets.UTF_8), true);
        ChildJvm child;
        try {
            child = ChildJvm.builder(workName, ScenarioMain.class.getName())
                    .java(java)
                    .jvmArgs(d.jvmArgs())
                    .args(List.of(d.name(), mode.toString(), work.toString(), registry.folder()))
                    .log(work.resolve("stdout.log"))
                    .stderr(stderr)
                    .onLine(line -> {
                        progress.printf(Locale.ROOT, "%7.1f s  %s%n", seconds(start), line);
                        status.progress(label, line);
                    })
                    .start();
        } catch (IOException | RuntimeException e) {
            progress.close();
            throw e;
        }
        int timeout = d.timeoutSeconds(mode);
        String json;
        int exit;
        try {
            try {
                json = child.await(ScenarioMain.RESULT, Duration.ofSeconds(timeout));
            } catch (IOException noResult) {
                if (child.process().isAlive()) {
                    child.stop();
                    return Results.missing(
                            d,
                            mode,
                            "timed out after " + timeout + " s (its limit in " + mode + " mode); stderr: "
                                    + tail(stderr),
                            seconds(start));
                }
                return Results.missing(
                        d,
                        mode,
                        "its JVM exited with status " + child.process().exitValue() + " without a result; stderr: "
                                + tail(stderr),
                        seconds(start));
            }
            // The result is in: the JVM ends its helpers and exits.
            long left = Math.max(30, timeout - (long) seconds(start));
            try {
                exit = child.awaitExit(Duration.ofSeconds(left));
            } catch (IOException hung) {
                return Json.parse(json, ScenarioResult.class)
                        .withSeconds(seconds(start), d.budgetSeconds(mode))
                        .failed(
                                "its JVM did not exit within " + left + " s of sending its result, and was ended",
                                seconds(start));
            }
        } catch (InterruptedException e) {
            child.stop();
            Thread.currentThread().interrupt();
            return Results.missing(d, mode, "interrupted", seconds(start));
        } finally {
            progress.close();
        }
        ScenarioResult r = Json.parse(json, ScenarioResult.class).withSeconds(seconds(start), d.budgetSeconds(mode));
        return exit == 0 || !r.ok() ? r : r.failed("its JVM exited with status " + exit, r.seconds());
    }

    /**
     * The console during a run: one line per scenario run ("[2/7] pinning ... done in 18.2 s
     * (budget 20 s)"). On a terminal the line shows the scenario's latest progress until it ends,
     * rewritten in place; elsewhere (a file, a pipe, a test) only the start and the outcome.
     */
    static final class Status {
        private static final String CLEAR_LINE = "\r\u001b[K";
        private final PrintWriter console;
        private final boolean live;
        /**
         * The longest live line: one that wraps cannot be erased with a carriage return. COLUMNS when
         * the shell exports it, else 79, which fits the narrowest usual terminal.
         */
        private int width = 79;

        Status(PrintWriter console, boolean live) {
            this.console = console;
            this.live = live;
            try {
                width = Math.max(
                        40,
                        Integer.parseInt(System.getenv()
                                        .getOrDefault("COLUMNS", "80")
                                        .strip())
                                - 1);
            } catch (NumberFormatException e) {
                // keep 79
            }
        }

        synchronized void start(String label) {
            console.print(label + " ... ");
            console.flush();
        }

        synchronized void progress(String label, String line) {
            if (live) {
                String text = label + " ... " + line.strip();
                console.print(CLEAR_LINE + (text.length() > width ? text.substring(0, width - 3) + "..." : text));
                console.flush();
            }
        }

        synchronized void done(String label, String outcome) {
            console.print((live ? CLEAR_LINE + label + " ... " : "") + outcome + "\n");
            console.flush();
        }
    }

    /** Colour on a terminal, unless NO_COLOR is set (https://no-color.org). */
    private static boolean colour() {
        return terminal() && System.getenv("NO_COLOR") == null;
    }

    /** True when the console is a terminal that understands a carriage return and an erase-line. */
    private static boolean terminal() {
        java.io.Console c = System.console();
        if (c == null || "dumb".equals(System.getenv("TERM"))) {
            return false;
        }
        try { // JDK 22+ returns a console even when output is redirected; isTerminal tells
            return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(c);
        } catch (ReflectiveOperationException e) {
            return true; // JDK 21: System.console() is null unless on a terminal
        }
    }

    /** "JDK 21.0.8" for a java executable whose home has a release file, else its path. */
    static String jdkName(String java) {
        Path home = Path.of(java).toAbsolutePath().getParent().getParent();
        try {
            for (String line : Files.readAllLines(home.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=")) {
                    return "JDK "
                            + line.substring("JAVA_VERSION=".length())
                                    .replace("\"", "")
                                    .strip();
                }
            }
        } catch (IOException | RuntimeException e) {
            // no release file: name it by its path
        }
        return java;
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return lines.isEmpty()
                    ? "(empty)"
                    : String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    private static double seconds(long start) {
        return (System.nanoTime() - start) / 1e9;
    }
}
