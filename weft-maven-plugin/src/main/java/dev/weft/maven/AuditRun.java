package dev.weft.maven;

import dev.weft.audit.AuditReport;
import dev.weft.audit.Auditor;
import dev.weft.audit.Severity;
import dev.weft.audit.Suppressions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * One audit as the Maven goal runs it, without Maven's types (so it is tested on its own): the
 * inputs and classpath, the target JDK, suppressions, the SARIF file, and whether a finding
 * reached {@code failOn}.
 */
final class AuditRun {

    /** What the run found: whether it fails the build, and the line that says so. */
    record Outcome(boolean failed, String summary) {}

    private final List<String> inputs;
    private final List<String> classpath;
    private final int targetJdk;
    private final Severity failOn;
    private final Path baseline;
    private final List<String> excludes;
    private final Path sarif;

    /**
     * @throws IllegalArgumentException for an unknown {@code failOn}
     */
    AuditRun(
            List<String> classes,
            List<String> dependencies,
            boolean includeDependencies,
            int targetJdk,
            String failOn,
            Path baseline,
            List<String> excludes,
            Path sarif) {
        this.inputs = new ArrayList<>(classes);
        this.classpath = new ArrayList<>();
        (includeDependencies ? inputs : classpath).addAll(dependencies);
        this.targetJdk = targetJdk;
        this.failOn = failOn == null || failOn.strip().equalsIgnoreCase("none") ? null : parse(failOn);
        this.baseline = baseline;
        this.excludes = excludes == null ? List.of() : List.copyOf(excludes);
        this.sarif = sarif;
    }

    private static Severity parse(String failOn) {
        try {
            return Severity.parse(failOn);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("<failOn>" + failOn + "</failOn>: use error, warning, info or none");
        }
    }

    /**
     * The target: {@code configured} when set, else the project's {@code maven.compiler.release},
     * else the JDK running Maven.
     *
     * @throws IllegalArgumentException when the release is not a number
     */
    static int targetJdk(Integer configured, String release) {
        if (configured != null) {
            return configured;
        }
        if (release != null && !release.isBlank()) {
            try {
                return Integer.parseInt(release.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("maven.compiler.release '" + release + "' is not a JDK version;"
                        + " set <targetJdk> in the plugin's configuration");
            }
        }
        return Runtime.version().feature();
    }

    /**
     * Audits, prints the report's text through {@code log} line by line, writes the SARIF file.
     *
     * @throws IllegalArgumentException for a bad target, baseline, exclusion or input
     * @throws IOException              if reading or writing fails
     */
    Outcome run(Consumer<String> log) throws IOException {
        Auditor auditor;
        try {
            auditor = Auditor.forTargetJdk(targetJdk);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    e.getMessage() + " (the target comes from <targetJdk>, else maven.compiler.release)");
        }
        Suppressions suppressions = Suppressions.none();
        if (baseline != null) {
            suppressions = suppressions.withBaseline(baseline);
        }
        for (String exclude : excludes) {
            int eq = exclude.indexOf('=');
            suppressions = eq < 0
                    ? suppressions.excluding(exclude.strip(), null)
                    : suppressions.excluding(
                            exclude.substring(0, eq).strip(),
                            exclude.substring(eq + 1).strip());
        }
        AuditReport report = suppressions.apply(auditor.audit(inputs, classpath));
        report.toText().lines().forEach(log);
        Files.createDirectories(sarif.toAbsolutePath().getParent());
        Files.writeString(sarif, report.toSarif() + "\n");
        log.accept("weft audit: SARIF written to " + sarif);
        boolean failed =
                failOn != null && report.worst().map(w -> w.atLeast(failOn)).orElse(false);
        var counts = report.counts();
        String summary = String.format(
                Locale.ROOT,
                "weft audit: %d errors, %d warnings, %d info at target JDK %d" + " (failOn %s)%s",
                counts.get(Severity.ERROR),
                counts.get(Severity.WARNING),
                counts.get(Severity.INFO),
                targetJdk,
                failOn == null ? "none" : failOn.toString(),
                failed
                        ? ": fix them, or suppress them with a reason in <excludes> or a <baseline> (see the report above and "
                                + sarif + ")"
                        : "");
        return new Outcome(failed, summary);
    }
}
