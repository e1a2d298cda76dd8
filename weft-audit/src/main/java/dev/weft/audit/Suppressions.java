package dev.weft.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Findings a user has accepted, so that an audit reports them as suppressed instead of counting
 * them (they no longer reach {@code --fail-on}). Two kinds, combinable:
 *
 * <ul>
 *   <li>a <b>baseline</b>: the findings of an earlier audit, written by
 *       {@link #writeBaseline(AuditReport, Path)} ({@code --write-baseline FILE}). A finding is in
 *       the baseline when its rule, class, member and descriptor match one there; line numbers
 *       are left out, so that edits elsewhere in a file do not bring it back. Each entry may carry
 *       a {@code reason}, which the reports show.</li>
 *   <li>an <b>exclusion</b>: a pattern over {@code class.member} ({@code com.acme.Legacy.*},
 *       {@code dev.weft.pin.ProbeInit.<clinit>}); {@code *} matches any run of characters,
 *       everything else matches itself. A pattern without a member part also matches every
 *       member of that class ({@code com.acme.Legacy} = {@code com.acme.Legacy.*}).</li>
 * </ul>
 *
 * <p>Suppressed findings stay in the report ({@link AuditReport#suppressed()}) and in SARIF as
 * results with {@code suppressions} (kind {@code external}, with the justification), so nothing is
 * hidden: they are only not counted.
 *
 * <p>Instances are immutable.
 */
public final class Suppressions {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final String FORMAT = "weft-audit-baseline";

    private final Map<List<String>, String> baseline; // key -> reason ("" when none)
    private final String baselineName;
    private final List<Exclusion> exclusions;

    private record Exclusion(String pattern, Pattern regex, String reason) {}

    private Suppressions(Map<List<String>, String> baseline, String baselineName, List<Exclusion> exclusions) {
        this.baseline = Map.copyOf(baseline);
        this.baselineName = baselineName;
        this.exclusions = List.copyOf(exclusions);
    }

    /** Suppresses nothing. */
    public static Suppressions none() {
        return new Suppressions(Map.of(), null, List.of());
    }

    /**
     * These suppressions plus the findings of the baseline {@code file}.
     *
     * @throws IllegalArgumentException if the file is missing or is not a weft audit baseline
     *                                  (the message says how to write one)
     * @throws IOException              if it cannot be read
     */
    public Suppressions withBaseline(Path file) throws IOException {
        Objects.requireNonNull(file, "file");
        JsonNode root;
        try {
            root = JSON.readTree(Files.readString(file));
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(
                    "no baseline file " + file + "; write one with --write-baseline " + file);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(file + " is not JSON (" + e.getOriginalMessage()
                    + "); a baseline is written by --write-baseline FILE");
        }
        if (root == null
                || !FORMAT.equals(root.path("format").asText())
                || !root.path("findings").isArray()) {
            throw new IllegalArgumentException(file + " is not a weft audit baseline (no \"format\": \"" + FORMAT
                    + "\" with \"findings\"); write one with --write-baseline FILE");
        }
        Map<List<String>, String> merged = new LinkedHashMap<>(baseline);
        for (JsonNode f : root.get("findings")) {
            merged.put(
                    key(
                            f.path("rule").asText(),
                            f.path("class").asText(),
                            f.path("member").asText(),
                            f.path("descriptor").isNull()
                                    ? null
                                    : f.path("descriptor").asText(null)),
                    f.path("reason").asText(""));
        }
        return new Suppressions(merged, file.toString(), exclusions);
    }

    /**
     * These suppressions plus an exclusion of every finding whose {@code class.member} matches
     * {@code pattern}.
     *
     * @param reason why, shown with each finding it suppresses (e.g. "the pin probe blocks on purpose")
     * @throws IllegalArgumentException if the pattern is blank
     */
    public Suppressions excluding(String pattern, String reason) {
        Objects.requireNonNull(pattern, "pattern");
        String p = pattern.strip();
        if (p.isEmpty()) {
            throw new IllegalArgumentException(
                    "an exclusion pattern names a class or class.member, e.g. com.acme.Legacy.*");
        }
        // '*' matches any run of characters, the rest itself; a class name alone covers its members
        String regex = java.util.Arrays.stream(p.split("\\*", -1))
                .map(Pattern::quote)
                .collect(java.util.stream.Collectors.joining(".*"));
        String full = regex + "(\\..*)?";
        List<Exclusion> more = new ArrayList<>(exclusions);
        more.add(new Exclusion(
                p, Pattern.compile(full), reason == null || reason.isBlank() ? "excluded by " + p : reason));
        return new Suppressions(baseline, baselineName, more);
    }

    /** True when nothing is suppressed. */
    public boolean isEmpty() {
        return baseline.isEmpty() && exclusions.isEmpty();
    }

    /**
     * {@code report} with every finding these suppressions cover moved to
     * {@link AuditReport#suppressed()}, each with its justification.
     */
    public AuditReport apply(AuditReport report) {
        List<Finding> kept = new ArrayList<>();
        List<AuditReport.Suppressed> suppressed = new ArrayList<>(report.suppressed());
        for (Finding f : report.findings()) {
            String why = justification(f);
            if (why == null) {
                kept.add(f);
            } else {
                suppressed.add(new AuditReport.Suppressed(f, why));
            }
        }
        return new AuditReport(
                report.inputs(),
                report.targetJdk(),
                report.classes(),
                report.bytes(),
                report.elapsed(),
                kept,
                report.problems(),
                suppressed);
    }

    /** Why {@code f} is suppressed, or null when it is not. */
    String justification(Finding f) {
        String reason = baseline.get(key(f.rule().id(), f.className(), f.member(), f.descriptor()));
        if (reason != null) {
            return "in the baseline " + baselineName + (reason.isEmpty() ? "" : ": " + reason);
        }
        for (Exclusion e : exclusions) {
            if (e.regex().matcher(f.location()).matches()) {
                return "excluded by " + e.pattern()
                        + (e.reason().equals("excluded by " + e.pattern()) ? "" : ": " + e.reason());
            }
        }
        return null;
    }

    /**
     * Writes every finding of {@code report} (suppressed ones included, so that a baseline can be
     * refreshed) as a baseline {@code file}: {@code {"format": "weft-audit-baseline", "findings":
     * [{"rule", "class", "member", "descriptor", "message", "reason"}]}}. Reasons already in this
     * object's baseline are kept; new entries get an empty reason to fill in.
     */
    public void writeBaseline(AuditReport report, Path file) throws IOException {
        List<Finding> all = new ArrayList<>(report.findings());
        report.suppressed().forEach(s -> all.add(s.finding()));
        Map<List<String>, Map<String, Object>> entries = new LinkedHashMap<>();
        for (Finding f : all) {
            List<String> k = key(f.rule().id(), f.className(), f.member(), f.descriptor());
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("rule", f.rule().id());
            e.put("class", f.className());
            e.put("member", f.member());
            e.put("descriptor", f.descriptor());
            e.put("message", f.message());
            e.put("reason", baseline.getOrDefault(k, ""));
            entries.putIfAbsent(k, e);
        }
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("format", FORMAT);
        root.put("target_jdk", report.targetJdk());
        root.put("findings", List.copyOf(entries.values()));
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, JSON.writeValueAsString(root) + "\n");
    }

    private static List<String> key(String rule, String className, String member, String descriptor) {
        return java.util.Arrays.asList(rule, className, member, descriptor == null ? "" : descriptor);
    }
}
