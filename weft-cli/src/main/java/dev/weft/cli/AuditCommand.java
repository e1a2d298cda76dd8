package dev.weft.cli;

import dev.weft.audit.AuditReport;
import dev.weft.audit.Auditor;
import dev.weft.audit.Severity;
import dev.weft.audit.Suppressions;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code weft audit}: the static audit of weft-audit ({@link Auditor}) from the command line. Prints the report (or writes it
 * with {@code --output}) and exits 0, or 1 when a finding reaches {@code --fail-on}; bad
 * arguments and unreadable inputs exit 2 with one line naming the problem.
 */
@Command(
        name = "audit",
        sortOptions = false,
        customSynopsis = "weft audit <jar|dir|classpath>... [--classpath CLASSPATH] [--target-jdk N]"
                + " [--format text|json|sarif] [--output FILE] [--fail-on error|warning|info|none]"
                + " [--baseline FILE] [--write-baseline FILE] [--exclude PATTERN[=REASON]]...",
        description = "Finds in bytecode what pins or hurts virtual threads on a target JDK: blocking in class"
                + " initializers, native methods and upcalls, synchronized around blocking calls (socket and stream"
                + " I/O included), Object.wait,"
                + " Thread.yield spin loops and ThreadLocal fields.",
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:no finding reached --fail-on",
            "1:a finding reached --fail-on",
            "2:bad arguments or inputs (an empty folder, a file that is not a jar, a truncated jar, an unknown target)"
        })
final class AuditCommand implements Callable<Integer> {

    /** Output formats. */
    enum Format {
        TEXT,
        JSON,
        SARIF
    }

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(
            arity = "1..*",
            paramLabel = "<jar|dir|classpath>",
            description =
                    "Jars (nested jars included), folders of classes or jars, .class files, or classpaths of them.")
    List<String> inputs;

    @Option(
            names = {"--classpath", "-cp"},
            paramLabel = "CLASSPATH",
            description = "Libraries the audited code calls into (jars, folders, classpaths): calls into them are"
                    + " followed to see what blocks, but their own hazards are not reported.")
    List<String> classpath = List.of();

    @Option(
            names = "--target-jdk",
            paramLabel = "N",
            description = "The JDK the code will run on (default: this one, ${DEFAULT-VALUE}). synchronized and"
                    + " Object.wait are errors for 21-23 and information from 24.")
    int targetJdk = Runtime.version().feature();

    @Option(
            names = "--format",
            paramLabel = "FORMAT",
            converter = FormatConverter.class,
            description = "text (default), json, or sarif (SARIF 2.1.0, for code-scanning tools).")
    Format format = Format.TEXT;

    @Option(names = "--output", paramLabel = "FILE", description = "Write the report here instead of standard output.")
    Path output;

    @Option(
            names = "--fail-on",
            paramLabel = "SEVERITY",
            description = "Exit 1 when a finding is this severe or more: error, warning, info, or none (default).")
    String failOn = "none";

    @Option(
            names = "--baseline",
            paramLabel = "FILE",
            description =
                    "Findings accepted earlier (a file --write-baseline wrote): reported as suppressed, not counted"
                            + " and never reaching --fail-on. Matched by rule, class, member and descriptor, not line.")
    Path baseline;

    @Option(
            names = "--write-baseline",
            paramLabel = "FILE",
            description = "Write every finding of this audit to FILE as a baseline (reasons already in --baseline are"
                    + " kept; fill in the \"reason\" of new entries).")
    Path writeBaseline;

    @Option(
            names = "--exclude",
            paramLabel = "PATTERN[=REASON]",
            description = "Suppress findings whose class.member matches PATTERN ('*' matches anything; a class name"
                    + " alone covers its members), e.g. --exclude 'com.acme.Legacy.*=rewritten in 2.0'. Repeatable.")
    List<String> excludes = List.of();

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "Show this help and exit.")
    boolean help;

    @Override
    public Integer call() throws IOException {
        Severity threshold = failOnSeverity();
        Auditor auditor;
        try {
            auditor = Auditor.forTargetJdk(targetJdk);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--target-jdk: " + e.getMessage());
        }
        Suppressions suppressions = Suppressions.none();
        try {
            if (baseline != null) {
                suppressions = suppressions.withBaseline(baseline);
            }
            for (String exclude : excludes) {
                int eq = exclude.indexOf('=');
                suppressions = eq < 0
                        ? suppressions.excluding(exclude, null)
                        : suppressions.excluding(exclude.substring(0, eq), exclude.substring(eq + 1));
            }
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    (baseline != null && e.getMessage().contains(baseline.toString()) ? "--baseline: " : "--exclude: ")
                            + e.getMessage());
        }
        AuditReport report;
        try {
            report = suppressions.apply(auditor.audit(inputs, classpath));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        if (writeBaseline != null) {
            suppressions.writeBaseline(report, writeBaseline);
            spec.commandLine()
                    .getErr()
                    .printf(
                            Locale.ROOT,
                            "weft audit: baseline of %d findings written to %s%n",
                            report.findings().size() + report.suppressed().size(),
                            writeBaseline);
        }
        String text = switch (format) {
            case TEXT -> report.toText();
            case JSON -> report.toJson() + "\n";
            case SARIF -> report.toSarif() + "\n";
        };
        PrintWriter out = spec.commandLine().getOut();
        if (output == null) {
            out.print(text);
            out.flush();
        } else {
            Files.writeString(output, text);
            spec.commandLine()
                    .getErr()
                    .printf(
                            Locale.ROOT,
                            "weft audit: %d findings written to %s%n",
                            report.findings().size(),
                            output);
        }
        return threshold != null
                        && report.worst().map(w -> w.atLeast(threshold)).orElse(false)
                ? 1
                : 0;
    }

    private Severity failOnSeverity() {
        if (failOn.strip().equalsIgnoreCase("none")) {
            return null;
        }
        try {
            return Severity.parse(failOn);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--fail-on: unknown severity '" + failOn + "'; use error, warning, info or none");
        }
    }

    /** Parses {@code --format} in any case, naming the choices when it is none of them. */
    static final class FormatConverter implements CommandLine.ITypeConverter<Format> {
        @Override
        public Format convert(String value) {
            try {
                return Format.valueOf(value.strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(
                        "unknown format '" + value + "'; use text, json or sarif");
            }
        }
    }
}
