package dev.weft.lab.report;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.lab.Goal;
import dev.weft.lab.LabResult;
import dev.weft.lab.ScenarioResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Consecutive runs' verdicts side by side, and whether they agree. */
class RepeatsTest {

    private static LabResult run(List<Double> contextRounds) {
        LabResult lab = SampleLab.result();
        List<ScenarioResult> scenarios = lab.scenarios().stream()
                .map(s -> !s.name().equals("context")
                        ? s
                        : new ScenarioResult(
                                s.name(),
                                s.title(),
                                s.source(),
                                s.jdk(),
                                s.jdkMajor(),
                                s.limitNote(),
                                s.status(),
                                s.error(),
                                s.seconds(),
                                s.budgetSeconds(),
                                s.notes(),
                                List.of(SampleLab.goal(
                                        s.goals().getFirst().name(), 1.0, 1.10, Goal.AT_MOST, contextRounds)),
                                s.variants()))
                .toList();
        return new LabResult(
                lab.formatVersion(), lab.jdk(), lab.cores(), lab.mode(), lab.started(), lab.seconds(), null, scenarios);
    }

    @Test
    void agreeingRunsAreSaidToAgree() {
        String text = Repeats.sideBySide(List.of(run(List.of(1.01, 1.02, 1.03)), run(List.of(1.02, 1.03, 1.04))));
        assertTrue(text.lines().findFirst().orElseThrow().matches("goal +run 1 +run 2 +agree"), text);
        assertTrue(text.contains("every goal decided in all runs was decided the same way"), text);
        assertTrue(
                text.contains("met 1.000x [1.010x to 1.030x (75%), 3 rounds]"),
                "verdict, median, interval, rounds: " + text);
        assertTrue(text.contains("(not all decided)"), "the inconclusive switch goal: " + text);
        assertTrue(
                text.contains("inconclusive 0.062x [0.060x to 0.065x (75%), 3 rounds, ~743 needed]"),
                "an inconclusive goal with the rounds that would decide it (decision 0884): " + text);
    }

    @Test
    void aGoalDecidedBothWaysIsFlagged() {
        String text = Repeats.sideBySide(List.of(run(List.of(1.01, 1.02, 1.03)), run(List.of(1.12, 1.15, 1.2))));
        assertTrue(text.contains("1 goal decided differently (NOT reproducible)"), text);
        assertTrue(text.lines().anyMatch(l -> l.startsWith("context: weft-context") && l.endsWith("NO")), text);
    }
}
