package dev.weft.lab;

import java.util.List;

/**
 * A whole lab run: the shape of {@code results.json}, which other tools read. Its contract is
 * {@code doc/results.md} and the JSON Schema {@code doc/results.schema.json}.
 *
 * @param formatVersion the version of this shape: 2 since goals, rounds and per-scenario JDKs
 * @param jdk           the JDK that ran the lab ({@code java.runtime.version} and vendor)
 * @param cores         available processors
 * @param mode          {@code quick}, {@code full} or {@code smoke}
 * @param started       when the run started (ISO-8601, to the second, UTC)
 * @param seconds       the whole run's wall time
 * @param comparedWith  the folder of the previous run this one was compared with ({@code --compare}), or null
 * @param scenarios     one result per scenario (and JDK), in the order they ran
 */
public record LabResult(
        int formatVersion,
        String jdk,
        int cores,
        String mode,
        String started,
        Double seconds,
        String comparedWith,
        List<ScenarioResult> scenarios) {

    /** The format version this lab writes. */
    public static final int FORMAT_VERSION = 2;

    public LabResult {
        scenarios = List.copyOf(scenarios);
    }

    /** A run in the current format, not compared and without a total time: the form tests build. */
    public LabResult(String jdk, int cores, String mode, String started, List<ScenarioResult> scenarios) {
        this(FORMAT_VERSION, jdk, cores, mode, started, null, null, scenarios);
    }

    /** True when every scenario ran to the end. */
    public boolean ok() {
        return scenarios.stream().allMatch(ScenarioResult::ok);
    }

    /** Every goal of every scenario, in order, with its scenario. */
    public List<ScenarioGoal> goals() {
        return scenarios.stream()
                .flatMap(s -> s.goals().stream().map(g -> new ScenarioGoal(s, g)))
                .toList();
    }

    /**
     * A goal with the scenario that reported it.
     *
     * @param scenario the scenario
     * @param goal     its goal
     */
    public record ScenarioGoal(ScenarioResult scenario, Goal goal) {}
}
