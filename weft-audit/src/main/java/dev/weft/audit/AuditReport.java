package dev.weft.audit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The result of an audit: what was read, how fast, and the findings, most severe first. As text
 * for people ({@link #toText()}), JSON for tools ({@link #toJson()}) and SARIF 2.1.0 for code
 * scanning ({@link #toSarif()}).
 *
 * @param inputs    the jars, folders and class files read
 * @param targetJdk the JDK the severities are for
 * @param classes   how many classes were audited (the classpath's not included)
 * @param bytes     the size of every class file read, the classpath's included: the speed's measure
 * @param elapsed   how long reading and auditing took
 * @param findings  what was found, most severe first, then by class, member and line
 * @param problems  what could not be audited (unreadable class files, duplicates), one line each
 * @param suppressed findings a {@link Suppressions baseline or exclusion} covers: reported, not counted
 */
public record AuditReport(
        List<String> inputs,
        int targetJdk,
        int classes,
        long bytes,
        Duration elapsed,
        List<Finding> findings,
        List<String> problems,
        List<Suppressed> suppressed) {

    /**
     * A finding the user accepted.
     *
     * @param finding       the finding
     * @param justification why it is not counted: the baseline file and its reason, or the exclusion pattern
     */
    public record Suppressed(Finding finding, String justification) {

        /** @throws NullPointerException if a component is null */
        public Suppressed {
            Objects.requireNonNull(finding, "finding");
            Objects.requireNonNull(justification, "justification");
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final String SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

    /** @throws NullPointerException if a list or the duration is null */
    public AuditReport {
        inputs = List.copyOf(inputs);
        findings = List.copyOf(findings);
        problems = List.copyOf(problems);
        suppressed = List.copyOf(suppressed);
        Objects.requireNonNull(elapsed, "elapsed");
    }

    /** A report with nothing suppressed. */
    public AuditReport(
            List<String> inputs,
            int targetJdk,
            int classes,
            long bytes,
            Duration elapsed,
            List<Finding> findings,
            List<String> problems) {
        this(inputs, targetJdk, classes, bytes, elapsed, findings, problems, List.of());
    }

    /** How many findings have each severity (every severity present, 0 when none; suppressed ones not counted). */
    public Map<Severity, Integer> counts() {
        Map<Severity, Integer> counts = new EnumMap<>(Severity.class);
        for (Severity s : Severity.values()) {
            counts.put(s, 0);
        }
        findings.forEach(f -> counts.merge(f.severity(), 1, Integer::sum));
        return counts;
    }

    /** The most severe finding's severity, or empty when nothing was found. */
    public Optional<Severity> worst() {
        return findings.stream().map(Finding::severity).min(Enum::compareTo);
    }

    /** Megabytes (10^6 bytes) of class files audited per second. */
    public double megabytesPerSecond() {
        double seconds = elapsed.toNanos() / 1e9;
        return seconds == 0 ? 0 : bytes / 1e6 / seconds;
    }

    /**
     * The report for people: a headline with sizes, speed and counts; the findings grouped by
     * severity with class, member, source line and what happens there; what each rule found
     * means and how to fix it; and any input that could not be audited.
     */
    public String toText() {
        StringBuilder b = new StringBuilder();
        Map<Severity, Integer> counts = counts();
        b.append(String.format(
                Locale.ROOT,
                "weft audit: %,d classes (%.1f MB of class files) from %d input%s in %.2f s"
                        + " (%.1f MB/s), target JDK %d: %d error%s, %d warning%s, %d info\n",
                classes,
                bytes / 1e6,
                inputs.size(),
                inputs.size() == 1 ? "" : "s",
                elapsed.toNanos() / 1e9,
                megabytesPerSecond(),
                targetJdk,
                counts.get(Severity.ERROR),
                plural(counts.get(Severity.ERROR)),
                counts.get(Severity.WARNING),
                plural(counts.get(Severity.WARNING)),
                counts.get(Severity.INFO)));
        if (!suppressed.isEmpty()) {
            b.append(suppressed.size()).append(" more suppressed (not counted), listed at the end\n");
        }
        for (Severity s : Severity.values()) {
            List<Finding> of = findings.stream().filter(f -> f.severity() == s).toList();
            if (of.isEmpty()) {
                continue;
            }
            b.append('\n').append(s).append(" (").append(of.size()).append(")\n");
            for (Finding f : of) {
                b.append("  ")
                        .append(f.location())
                        .append(" (")
                        .append(f.sourcePosition())
                        .append(")  [")
                        .append(f.rule().id())
                        .append("]\n");
                b.append("      ").append(f.message()).append('\n');
                if (f.path().size() > 1) {
                    b.append("      via ").append(String.join(" -> ", f.path())).append('\n');
                }
            }
        }
        Set<Rule> found = new LinkedHashSet<>();
        findings.forEach(f -> found.add(f.rule()));
        if (!found.isEmpty()) {
            b.append("\nwhat the rules mean\n");
            for (Rule r : found) {
                b.append("  ").append(r.id()).append(": ").append(r.help()).append('\n');
            }
        }
        if (!suppressed.isEmpty()) {
            b.append("\nsuppressed (").append(suppressed.size()).append(")\n");
            for (Suppressed s : suppressed) {
                Finding f = s.finding();
                b.append("  ")
                        .append(f.location())
                        .append(" (")
                        .append(f.sourcePosition())
                        .append(")  [")
                        .append(f.rule().id())
                        .append(", ")
                        .append(f.severity())
                        .append("]\n");
                b.append("      ").append(s.justification()).append('\n');
            }
        }
        if (!problems.isEmpty()) {
            b.append("\nnot audited\n");
            problems.forEach(p -> b.append("  ").append(p).append('\n'));
        }
        return b.toString();
    }

    /**
     * The report as data: {@code tool, version, target_jdk, inputs, classes, bytes, seconds,
     * mb_per_second, counts (error, warning, info), findings (see Finding.toMap), suppressed (each
     * a finding's map plus {@code justification}), problems}.
     */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("tool", "weft-audit");
        m.put("version", version());
        m.put("target_jdk", targetJdk);
        m.put("inputs", inputs);
        m.put("classes", classes);
        m.put("bytes", bytes);
        m.put("seconds", elapsed.toNanos() / 1e9);
        m.put("mb_per_second", Math.round(megabytesPerSecond() * 10) / 10.0);
        Map<String, Integer> counts = new LinkedHashMap<>();
        counts().forEach((s, n) -> counts.put(s.toString(), n));
        m.put("counts", counts);
        m.put("findings", findings.stream().map(Finding::toMap).toList());
        m.put(
                "suppressed",
                suppressed.stream()
                        .map(s -> {
                            Map<String, Object> f =
                                    new LinkedHashMap<>(s.finding().toMap());
                            f.put("justification", s.justification());
                            return f;
                        })
                        .toList());
        m.put("problems", problems);
        return m;
    }

    /** {@link #toMap()} as indented JSON. */
    public String toJson() {
        return write(toMap());
    }

    /**
     * The report as a SARIF 2.1.0 log: one run of the tool {@code weft-audit} with every rule
     * (id, descriptions, help, default level) and one result per finding, located by the source
     * file the class names (relative to its package folder, as in a source tree) and line, and by
     * the logical name {@code class.member}. Suppressed findings are results too, with SARIF's
     * {@code suppressions} (kind {@code external}, status {@code accepted}, the justification).
     */
    public String toSarif() {
        List<Map<String, Object>> rules = new ArrayList<>();
        for (Rule r : Rule.values()) {
            Map<String, Object> rule = new LinkedHashMap<>();
            rule.put("id", r.id());
            rule.put("name", camel(r.id()));
            rule.put("shortDescription", Map.of("text", r.description()));
            rule.put("fullDescription", Map.of("text", r.description() + " " + r.help()));
            rule.put("help", Map.of("text", r.help()));
            rule.put(
                    "defaultConfiguration",
                    Map.of("level", r.severity(targetJdk).sarifLevel()));
            rules.add(rule);
        }
        List<Map<String, Object>> results = new ArrayList<>();
        List<Suppressed> all = new ArrayList<>();
        findings.forEach(f -> all.add(new Suppressed(f, "")));
        all.addAll(suppressed);
        for (Suppressed entry : all) {
            Finding f = entry.finding();
            Map<String, Object> physical = new LinkedHashMap<>();
            physical.put("artifactLocation", Map.of("uri", sourceUri(f)));
            if (f.line() > 0) {
                physical.put("region", Map.of("startLine", f.line()));
            }
            Map<String, Object> location = new LinkedHashMap<>();
            location.put("physicalLocation", physical);
            location.put(
                    "logicalLocations",
                    List.of(Map.of(
                            "fullyQualifiedName",
                            f.location(),
                            "kind",
                            f.descriptor() != null && f.descriptor().startsWith("(") ? "function" : "member")));
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("ruleId", f.rule().id());
            result.put("ruleIndex", f.rule().ordinal());
            result.put("level", f.severity().sarifLevel());
            result.put(
                    "message",
                    Map.of(
                            "text",
                            f.location() + ": " + f.message()
                                    + (f.path().size() > 1 ? " (via " + String.join(" -> ", f.path()) + ")" : "")));
            result.put("locations", List.of(location));
            if (!entry.justification().isEmpty()) {
                // SARIF 2.1.0 §3.35: a suppressed result; "external" = suppressed outside the source
                result.put(
                        "suppressions",
                        List.of(Map.of(
                                "kind", "external", "status", "accepted", "justification", entry.justification())));
            }
            results.add(result);
        }
        Map<String, Object> driver = new LinkedHashMap<>();
        driver.put("name", "weft-audit");
        driver.put("version", version());
        driver.put("rules", rules);
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("tool", Map.of("driver", driver));
        run.put("results", results);
        Map<String, Object> log = new LinkedHashMap<>();
        log.put("$schema", SARIF_SCHEMA);
        log.put("version", "2.1.0");
        log.put("runs", List.of(run));
        return write(log);
    }

    /** {@code com/acme/Cache.java} for a class {@code com.acme.Cache$Entry} compiled from {@code Cache.java}. */
    private static String sourceUri(Finding f) {
        int dot = f.className().lastIndexOf('.');
        String folder = dot < 0 ? "" : f.className().substring(0, dot).replace('.', '/') + "/";
        if (f.sourceFile() != null) {
            return folder + f.sourceFile();
        }
        String simple = f.className().substring(dot + 1);
        int nested = simple.indexOf('$');
        return folder + (nested > 0 ? simple.substring(0, nested) : simple) + ".class";
    }

    private static String camel(String id) {
        StringBuilder b = new StringBuilder();
        for (String part : id.split("-")) {
            b.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
        }
        return b.toString();
    }

    private static String plural(int n) {
        return n == 1 ? "" : "s";
    }

    private static String version() {
        String v = AuditReport.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    private static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("could not write the audit report as JSON: " + e.getMessage(), e);
        }
    }
}
