package dev.weft.lab;

import java.util.List;

/**
 * A whole lab run: the shape of {@code results.json}, which other tools read.
 *
 * @param jdk       the JDK that ran it ({@code java.runtime.version} and vendor)
 * @param cores     available processors
 * @param mode      {@code quick}, {@code full} or {@code smoke}
 * @param started   when the run started (ISO-8601)
 * @param scenarios one result per scenario, in the order they ran
 */
public record LabResult(String jdk, int cores, String mode, String started, List<ScenarioResult> scenarios) {

    public LabResult {
        scenarios = List.copyOf(scenarios);
    }

    /** True when every scenario ran to the end. */
    public boolean ok() {
        return scenarios.stream().allMatch(ScenarioResult::ok);
    }
}
