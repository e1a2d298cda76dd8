package dev.weft.lab.report;

import dev.weft.lab.Goal;
import dev.weft.lab.LabResult;
import dev.weft.lab.ScenarioResult;
import java.util.List;
import java.util.Locale;

/** A scenario as the console shows it: an aligned table, its limit, its notes, its error. */
public final class TextReport {

    private TextReport() {}

    private static final String RED = "\u001b[1;31m";
    private static final String GREEN = "\u001b[32m";
    private static final String YELLOW = "\u001b[33m";
    private static final String RESET = "\u001b[0m";

    /**
     * The verdict of a run, as the console shows it first in its summary: every goal of every
     * scenario with its figure, target and verdict, then one line counting them. With
     * {@code colour}, "met" is green and "NOT met" red; the words carry the verdict without it.
     */
    public static String verdicts(LabResult lab, boolean colour) {
        StringBuilder s = new StringBuilder("verdict: ").append(summary(lab)).append('\n');
        Table t = Table.goals(lab);
        if (!t.rows().isEmpty()) {
            String text = aligned(t, 0);
            if (colour) {
                text = text.replaceAll("(?m)  NOT met$", "  " + RED + "NOT met" + RESET)
                        .replaceAll("(?m)  met$", "  " + GREEN + "met" + RESET)
                        .replaceAll("(?m)  inconclusive$", "  " + YELLOW + "inconclusive" + RESET);
            }
            s.append(text);
        }
        for (ScenarioResult r : lab.scenarios()) {
            if (!r.ok()) {
                s.append(String.format(Locale.ROOT, "  %s did not run to the end: FAILED%n", r.name()));
            }
        }
        for (String line : busyMachine(lab)) {
            s.append("  ").append(line).append('\n');
        }
        return s.append('\n').toString();
    }

    /**
     * One sentence per scenario that started on a busy machine (other processes using more than
     * half of the cores), so a reader knows whether to believe its verdicts; empty on a quiet machine.
     */
    public static List<String> busyMachine(LabResult lab) {
        List<String> lines = new java.util.ArrayList<>();
        for (ScenarioResult r : lab.scenarios()) {
            if (r.ranOnABusyMachine()) {
                var m = r.machine();
                lines.add(String.format(
                        Locale.ROOT,
                        "the machine was BUSY when %s%s started: other processes used %.1f of"
                                + " its %d cores (load average %s, %s stolen); its verdicts may be the machine's",
                        r.name(),
                        Table.jdkSuffix(r, lab),
                        m.cpuBusyBefore() * m.cores(),
                        m.cores(),
                        m.loadBefore() == null ? "unknown" : String.format(Locale.ROOT, "%.2f", m.loadBefore()),
                        m.stealBefore() == null
                                ? "none known"
                                : String.format(Locale.ROOT, "%.0f%%", 100 * m.stealBefore())));
            }
        }
        return lines;
    }

    /**
     * The console's summary after a run: the verdict table first, then every scenario's details
     * (table, goals, limit, notes, error), then the time each scenario took against its budget and
     * the total. {@code totalBudget} is the whole run's budget in seconds (the quick lab's 4
     * minutes), or null when none applies (a subset, or another mode).
     */
    public static String consoleSummary(LabResult lab, boolean colour, Integer totalBudget) {
        StringBuilder s = new StringBuilder(verdicts(lab, colour));
        for (ScenarioResult r : lab.scenarios()) {
            s.append(scenario(r, Table.jdkSuffix(r, lab)));
        }
        return s.append(times(lab, totalBudget)).toString();
    }

    /**
     * The outcome of one scenario run, as its progress line ends: "done in 18.2 s (budget 20 s)",
     * "OVER BUDGET", "goals NOT all met", or "FAILED" with the first line of its error.
     */
    public static String progressLine(ScenarioResult r) {
        StringBuilder s = new StringBuilder(r.ok() ? "done" : "FAILED")
                .append(String.format(Locale.ROOT, " in %.1f s", r.seconds()));
        if (r.budgetSeconds() != null) {
            s.append(" (budget ")
                    .append(r.budgetSeconds())
                    .append(" s")
                    .append(overBudget(r) ? ", OVER BUDGET" : "")
                    .append(')');
        }
        if (!r.ok() && r.error() != null) {
            s.append(": ").append(r.error().lines().findFirst().orElse(""));
        } else if (r.missedAGoal()) {
            s.append("; goals NOT all met");
        }
        return s.toString();
    }

    /**
     * Each scenario's time against its budget and the run's total, on one line each, e.g.
     * "time: 3 min 41 s in all, within the quick lab's 5 minutes".
     */
    public static String times(LabResult lab, Integer totalBudget) {
        StringBuilder s = new StringBuilder("time:");
        for (ScenarioResult r : lab.scenarios()) {
            s.append(String.format(
                    Locale.ROOT,
                    " %s%s %.1f s%s%s;",
                    r.name(),
                    Table.jdkSuffix(r, lab),
                    r.seconds(),
                    r.budgetSeconds() == null ? "" : " of " + r.budgetSeconds() + " s",
                    overBudget(r) ? " OVER BUDGET" : ""));
        }
        s.setLength(s.length() - (lab.scenarios().isEmpty() ? 0 : 1));
        s.append('\n');
        if (lab.seconds() != null) {
            s.append("total: ").append(duration(lab.seconds()));
            if (totalBudget != null) {
                s.append(lab.seconds() <= totalBudget ? ", within " : ", OVER ")
                        .append("the quick lab's budget of ")
                        .append(duration(totalBudget));
            }
            s.append('\n');
        }
        return s.toString();
    }

    private static boolean overBudget(ScenarioResult r) {
        return r.budgetSeconds() != null && r.seconds() > r.budgetSeconds();
    }

    /** "3 min 41 s", "4 min", "58.2 s". */
    static String duration(double seconds) {
        if (seconds < 60) {
            return String.format(Locale.ROOT, "%.1f s", seconds);
        }
        long whole = Math.round(seconds);
        return whole % 60 == 0 ? whole / 60 + " min" : whole / 60 + " min " + whole % 60 + " s";
    }

    /** One line: how many goals were met, not met and not judged, and how many scenarios failed. */
    public static String summary(LabResult lab) {
        List<Goal> goals =
                lab.goals().stream().map(LabResult.ScenarioGoal::goal).toList();
        long met = goals.stream().filter(g -> Goal.MET.equals(g.verdict())).count();
        long notMet = goals.stream().filter(Goal::failed).count();
        long inconclusive = goals.stream().filter(Goal::inconclusive).count();
        long notJudged = goals.size() - met - notMet - inconclusive;
        long failed = lab.scenarios().stream().filter(r -> !r.ok()).count();
        StringBuilder s = new StringBuilder();
        if (goals.isEmpty()) {
            s.append("no goals to judge");
        } else {
            s.append(met)
                    .append(" of ")
                    .append(goals.size())
                    .append(goals.size() == 1 ? " goal" : " goals")
                    .append(" met");
        }
        if (notMet > 0) {
            s.append(", ").append(notMet).append(" NOT met");
        }
        if (inconclusive > 0) {
            s.append(", ").append(inconclusive).append(" inconclusive");
        }
        if (notJudged > 0) {
            s.append(", ").append(notJudged).append(" not judged (smoke run)");
        }
        s.append("; ")
                .append(lab.scenarios().size() - failed)
                .append(" of ")
                .append(lab.scenarios().size())
                .append(lab.scenarios().size() == 1 ? " scenario" : " scenarios")
                .append(" ran to the end");
        return s.toString();
    }

    /** A scenario's heading: its name and title, and whether it missed a goal. */
    public static String heading(ScenarioResult r) {
        return r.name() + ": " + r.title() + (r.missedAGoal() ? " (goals NOT all met)" : "");
    }

    /** The console text of {@code r}, ending with a blank line. */
    public static String scenario(ScenarioResult r) {
        return scenario(r, "");
    }

    /** The console text of {@code r}, its name followed by {@code jdkSuffix} (" (JDK 21)" or ""). */
    static String scenario(ScenarioResult r, String jdkSuffix) {
        StringBuilder s = new StringBuilder();
        s.append(r.name())
                .append(jdkSuffix)
                .append(heading(r).substring(r.name().length()))
                .append('\n');
        Table t = Table.of(r);
        if (!t.rows().isEmpty()) {
            s.append(aligned(t, 2));
        }
        for (Goal g : r.goals()) {
            s.append("  goal: ")
                    .append(g.name())
                    .append(": ")
                    .append(Table.goalMeasured(g))
                    .append(", interval ")
                    .append(Table.goalInterval(g))
                    .append(", ")
                    .append(g.verdictText())
                    .append(g.roundsNeededText())
                    .append('\n');
        }
        if (r.limitNote() != null) {
            s.append("  limit: ").append(r.limitNote()).append('\n');
        }
        for (String note : r.notes()) {
            s.append("  note: ").append(note).append('\n');
        }
        if (!r.ok()) {
            s.append("  FAILED: ")
                    .append(
                            r.error() == null
                                    ? "(no error recorded)"
                                    : r.error().replace("\n", "\n          "))
                    .append('\n');
        }
        return s.append('\n').toString();
    }

    private static List<List<String>> concat(Table t) {
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(t.header()), t.rows().stream())
                .toList();
    }

    /** {@code t} as aligned text, indented by {@code indent} spaces: names left, figures right. */
    static String aligned(Table t, int indent) {
        StringBuilder s = new StringBuilder();
        int[] widths = new int[t.header().size()];
        for (List<String> row : concat(t)) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        String pad = " ".repeat(indent);
        appendRow(s, pad, t.header(), widths);
        StringBuilder rule = new StringBuilder(pad);
        for (int w : widths) {
            rule.append("-".repeat(w)).append("  ");
        }
        s.append(rule.toString().stripTrailing()).append('\n');
        for (List<String> row : t.rows()) {
            appendRow(s, pad, row, widths);
        }
        return s.toString();
    }

    private static void appendRow(StringBuilder s, String indent, List<String> row, int[] widths) {
        StringBuilder line = new StringBuilder(indent);
        for (int i = 0; i < row.size(); i++) {
            String cell = row.get(i);
            // names left, figures right
            // names and sentences left, figures right
            boolean left = i == 0 || !Character.isDigit(firstChar(row, i)) && !cell.equals("-");
            line.append(pad(cell, widths[i], !left)).append("  ");
        }
        s.append(line.toString().stripTrailing()).append('\n');
    }

    private static char firstChar(List<String> row, int i) {
        String c = row.get(i);
        return c.isEmpty()
                ? ' '
                : c.charAt(0) == '-' || c.charAt(0) == '+' ? (c.length() > 1 ? c.charAt(1) : ' ') : c.charAt(0);
    }

    private static String pad(String cell, int width, boolean right) {
        String fill = " ".repeat(width - cell.length());
        return right ? fill + cell : cell + fill;
    }
}
