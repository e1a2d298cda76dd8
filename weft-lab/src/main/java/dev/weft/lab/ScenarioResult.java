package dev.weft.lab;

import java.util.List;

/**
 * What one scenario reported, as {@code results.json} carries it.
 *
 * @param name       the scenario's name (e.g. {@code pinning})
 * @param title      one line: what it runs
 * @param source     the article it reproduces: title and URL
 * @param limitNote  one line: why the limits are the ceiling
 * @param status     {@code ok} or {@code failed}
 * @param error      why it failed, or null
 * @param seconds    wall time of the scenario, JVM start included
 * @param notes      findings worth a sentence (e.g. a published figure above its own limit)
 * @param variants   the measured variants, in the order they ran
 */
public record ScenarioResult(String name, String title, String source, String limitNote, String status,
                             String error, double seconds, List<String> notes, List<Variant> variants) {

    public ScenarioResult {
        notes = notes == null ? List.of() : List.copyOf(notes);
        variants = variants == null ? List.of() : List.copyOf(variants);
    }

    /** True when the scenario ran to the end. */
    public boolean ok() {
        return "ok".equals(status);
    }

    /** This result with its wall time replaced (the runner counts the JVM's start too). */
    public ScenarioResult withSeconds(double seconds) {
        return new ScenarioResult(name, title, source, limitNote, status, error, seconds, notes, variants);
    }

    /** This result, failed with {@code error} (keeping the variants measured before the failure). */
    public ScenarioResult failed(String error, double seconds) {
        return new ScenarioResult(name, title, source, limitNote, "failed", error, seconds, notes, variants);
    }
}
