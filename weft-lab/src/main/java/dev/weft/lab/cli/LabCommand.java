package dev.weft.lab.cli;

import dev.weft.lab.LabResult;
import dev.weft.lab.Mode;
import dev.weft.lab.report.Json;
import dev.weft.lab.report.Repeats;
import dev.weft.lab.run.Descriptor;
import dev.weft.lab.run.LabRunner;
import dev.weft.lab.run.Registry;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weft lab}: runs the lab's scenarios and writes its reports. */
@Command(
        name = "lab",
        sortOptions = false,
        customSynopsis = "weft lab [--full | --smoke] [--only NAME[,NAME]] [--list] [--out DIR] [--compare DIR]"
                + " [--repeat N] [--jdk 21|25|PATH] [--help]",
        description = "Re-runs the articles' experiments on this machine, each next to its physical limit, and writes"
                + " results.json, report.md and report.html, which open with the verdict on every goal. Quick mode (the"
                + " default) finishes within 5 minutes on 2 cores; --full adds the articles' sizes, cold starts and"
                + " dispatchers-io-5000.",
        footer = "%n--jdk 21|25|PATH (read by ./weft): run the lab on that JDK, fetching a JDK 21 runtime if none is"
                + " installed. Without it, the pinning scenario also runs on every other JDK >= 21 installed or cached"
                + " (nothing is downloaded for that), reported side by side.")
final class LabCommand implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--full", description = "Run the articles' original sizes (takes much longer).")
    boolean full;

    @Option(
            names = "--smoke",
            description = "Run tiny sizes that only check every scenario works; figures mean nothing.")
    boolean smoke;

    @Option(names = "--only", split = ",", paramLabel = "NAME", description = "Run only these scenarios (see --list).")
    List<String> only = List.of();

    @Option(names = "--list", description = "List the scenarios and exit.")
    boolean list;

    @Option(names = "--out", paramLabel = "DIR", description = "Where reports go (default: target/lab).")
    Path out;

    @Option(
            names = "--compare",
            paramLabel = "DIR",
            description = "Compare every variant with the run whose output"
                    + " folder (with its results.json) is DIR: the previous figure, the change, and a flag where the change goes"
                    + " beyond the run-to-run spread (the two runs' per-round ranges do not overlap).")
    Path compare;

    @Option(
            names = "--repeat",
            paramLabel = "N",
            description = "Run the lab N times in a row (each run's reports in"
                    + " DIR/run-1 ... DIR/run-N) and print their verdict tables side by side, with whether every goal they all"
                    + " decide was decided the same way (default: 1).")
    int repeat = 1;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "Show this help and exit.")
    boolean help;

    @Override
    public Integer call() throws Exception {
        var out = spec.commandLine().getOut();
        if (full && smoke) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--full and --smoke exclude each other");
        }
        Registry registry = Registry.load();
        if (list) {
            for (Descriptor d : registry.all()) {
                out.printf("%-12s article %s  %s%n", d.name(), d.article(), d.title());
            }
            return 0;
        }
        Mode mode = full ? Mode.FULL : smoke ? Mode.SMOKE : Mode.QUICK;
        try {
            registry.select(only);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        if (compare != null && !java.nio.file.Files.isRegularFile(compare.resolve("results.json"))) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--compare " + compare
                            + ": no results.json there; give the output folder of an earlier ./weft lab run (e.g. a copy of target/lab)");
        }
        if (repeat < 1) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--repeat " + repeat + ": give a number of runs, 1 or more");
        }
        if (repeat == 1) {
            return new LabRunner(out, registry).run(new LabRunner.Options(mode, only, outDir(), compare));
        }
        int exit = 0;
        List<LabResult> runs = new java.util.ArrayList<>();
        for (int i = 1; i <= repeat; i++) {
            Path dir = outDir().resolve("run-" + i);
            out.printf("%nweft lab --repeat %d: run %d of %d -> %s%n", repeat, i, repeat, dir);
            exit = Math.max(exit, new LabRunner(out, registry).run(new LabRunner.Options(mode, only, dir, compare)));
            runs.add(Json.read(dir.resolve("results.json"), LabResult.class));
        }
        String table = Repeats.sideBySide(runs);
        java.nio.file.Files.writeString(outDir().resolve("repeat.txt"), table);
        out.printf(
                "%n%d consecutive runs side by side (also in %s):%n%s", repeat, outDir().resolve("repeat.txt"), table);
        out.flush();
        return exit;
    }

    private Path outDir() {
        if (out != null) {
            return out;
        }
        // The launcher passes the repository root so that reports land in one place wherever it is called from.
        String home = System.getProperty("weft.home");
        return home == null ? Path.of("target", "lab") : Path.of(home, "target", "lab");
    }
}
