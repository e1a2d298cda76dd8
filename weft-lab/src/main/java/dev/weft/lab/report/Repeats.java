package dev.weft.lab.report;

import dev.weft.lab.Goal;
import dev.weft.lab.LabResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Consecutive lab runs' verdicts side by side ({@code ./weft lab --repeat N}): one row per goal,
 * one column per run, each cell the verdict and the median, then whether the runs agree. Issue
 * 26's reproducibility check: every goal that all runs decide (met or NOT met) must be decided the
 * same way in each, and no run may leave more than two goals inconclusive.
 */
public final class Repeats {

    private Repeats() {}

    /** The side-by-side table and a closing line that says whether the runs agree. */
    public static String sideBySide(List<LabResult> runs) {
        Map<String, List<Goal>> byGoal = new LinkedHashMap<>();
        for (int i = 0; i < runs.size(); i++) {
            for (LabResult.ScenarioGoal sg : runs.get(i).goals()) {
                String key = sg.scenario().name() + Table.jdkSuffix(sg.scenario(), runs.get(i)) + ": "
                        + sg.goal().name();
                List<Goal> cells = byGoal.computeIfAbsent(key, k -> new ArrayList<>());
                while (cells.size() < i) {
                    cells.add(null);
                }
                cells.add(sg.goal());
            }
        }
        List<String> header = new ArrayList<>(List.of("goal"));
        for (int i = 1; i <= runs.size(); i++) {
            header.add("run " + i);
        }
        header.add("agree");
        List<List<String>> rows = new ArrayList<>();
        int disagree = 0;
        for (Map.Entry<String, List<Goal>> e : byGoal.entrySet()) {
            List<Goal> cells = new ArrayList<>(e.getValue());
            while (cells.size() < runs.size()) {
                cells.add(null);
            }
            List<String> row = new ArrayList<>(List.of(e.getKey()));
            for (Goal g : cells) {
                row.add(
                        g == null
                                ? "-"
                                : g.verdictText() + " " + Table.goalFigure(g.measured(), g.unit()) + " ["
                                        + Table.goalInterval(g)
                                        + (g.roundsUsed() == null ? "" : ", " + g.roundsUsed() + " rounds")
                                        + (g.roundsNeeded() == null
                                                ? ""
                                                : String.format(Locale.ROOT, ", ~%,d needed", g.roundsNeeded()))
                                        + "]");
            }
            boolean allDecided = cells.stream().allMatch(g -> g != null && g.met() != null);
            boolean same =
                    !allDecided || cells.stream().map(Goal::met).distinct().count() == 1;
            if (!same) {
                disagree++;
            }
            row.add(!allDecided ? "(not all decided)" : same ? "yes" : "NO");
            rows.add(row);
        }
        StringBuilder s = new StringBuilder(TextReport.aligned(new Table(header, rows), 0));
        List<Long> inconclusive = runs.stream()
                .map(r ->
                        r.goals().stream().filter(g -> g.goal().inconclusive()).count())
                .toList();
        long worst = inconclusive.stream().mapToLong(Long::longValue).max().orElse(0);
        s.append(String.format(
                Locale.ROOT,
                "%d run%s: %s; inconclusive goals per run %s (at most 2 wanted)%n",
                runs.size(),
                runs.size() == 1 ? "" : "s",
                disagree == 0
                        ? "every goal decided in all runs was decided the same way"
                        : disagree + " goal" + (disagree == 1 ? "" : "s") + " decided differently (NOT reproducible)",
                inconclusive + (worst > 2 ? ", MORE than 2 in a run" : "")));
        return s.toString();
    }
}
