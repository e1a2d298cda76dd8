package dev.weft.lab;

import java.util.List;

/**
 * What one scenario reported, as {@code results.json} carries it (see {@code doc/results.md}).
 *
 * @param name          the scenario's name (e.g. {@code pinning}); a scenario run on a second JDK appears
 *                      again with the same name and its own {@code jdk}
 * @param title         one line: what it runs
 * @param source        the article it reproduces: title and URL
 * @param jdk           the full version of the JDK the scenario ran on ({@code java.runtime.version}), or
 *                      null when its JVM did not report one (it crashed before)
 * @param jdkMajor      that JDK's feature release, e.g. 25, or null
 * @param limitNote     one line: why the limits are the ceiling
 * @param status        {@code ok} or {@code failed}: whether it ran to the end, not whether its goals were met
 * @param error         why it failed, or null
 * @param seconds       wall time of the scenario, JVM start included
 * @param budgetSeconds the time the scenario is meant to take in this mode (its descriptor's budget), or null
 * @param notes         findings worth a sentence (e.g. a published figure above its own limit)
 * @param goals         the goals and their verdicts, in the order they were reported
 * @param variants      the measured variants, in the order they ran
 * @param machine       the machine's load and CPU steal before and while the scenario ran (the runner reads
 *                      them), or null where they could not be read
 */
public record ScenarioResult(
        String name,
        String title,
        String source,
        String jdk,
        Integer jdkMajor,
        String limitNote,
        String status,
        String error,
        double seconds,
        Integer budgetSeconds,
        List<String> notes,
        List<Goal> goals,
        List<Variant> variants,
        Machine machine) {

    public ScenarioResult {
        notes = notes == null ? List.of() : List.copyOf(notes);
        goals = goals == null ? List.of() : List.copyOf(goals);
        variants = variants == null ? List.of() : List.copyOf(variants);
    }

    /** A result without the machine's state. */
    public ScenarioResult(
            String name,
            String title,
            String source,
            String jdk,
            Integer jdkMajor,
            String limitNote,
            String status,
            String error,
            double seconds,
            Integer budgetSeconds,
            List<String> notes,
            List<Goal> goals,
            List<Variant> variants) {
        this(
                name,
                title,
                source,
                jdk,
                jdkMajor,
                limitNote,
                status,
                error,
                seconds,
                budgetSeconds,
                notes,
                goals,
                variants,
                null);
    }

    /** A result without JDK, budget or goals: the form tests and older callers build. */
    public ScenarioResult(
            String name,
            String title,
            String source,
            String limitNote,
            String status,
            String error,
            double seconds,
            List<String> notes,
            List<Variant> variants) {
        this(name, title, source, null, null, limitNote, status, error, seconds, null, notes, List.of(), variants);
    }

    /** True when the scenario ran to the end. */
    public boolean ok() {
        return "ok".equals(status);
    }

    /** True when a judged goal of this scenario was not met. */
    public boolean missedAGoal() {
        return goals.stream().anyMatch(Goal::failed);
    }

    /** This result with its wall time and budget replaced (the runner counts the JVM's start too). */
    public ScenarioResult withSeconds(double seconds, Integer budgetSeconds) {
        return new ScenarioResult(
                name,
                title,
                source,
                jdk,
                jdkMajor,
                limitNote,
                status,
                error,
                seconds,
                budgetSeconds,
                notes,
                goals,
                variants,
                machine);
    }

    /** This result with these variants (e.g. compared with a previous run). */
    public ScenarioResult withVariants(List<Variant> variants) {
        return new ScenarioResult(
                name,
                title,
                source,
                jdk,
                jdkMajor,
                limitNote,
                status,
                error,
                seconds,
                budgetSeconds,
                notes,
                goals,
                variants,
                machine);
    }

    /** This result with the machine's state around it. */
    public ScenarioResult withMachine(Machine machine) {
        return new ScenarioResult(
                name,
                title,
                source,
                jdk,
                jdkMajor,
                limitNote,
                status,
                error,
                seconds,
                budgetSeconds,
                notes,
                goals,
                variants,
                machine);
    }

    /** True when the machine was busy as this scenario started, so a miss may be the machine's. */
    public boolean ranOnABusyMachine() {
        return machine != null && machine.busy();
    }

    /** This result, failed with {@code error} (keeping what was measured before the failure). */
    public ScenarioResult failed(String error, double seconds) {
        return new ScenarioResult(
                name,
                title,
                source,
                jdk,
                jdkMajor,
                limitNote,
                "failed",
                error,
                seconds,
                budgetSeconds,
                notes,
                goals,
                variants,
                machine);
    }
}
