package dev.weft.lab.report;

import dev.weft.lab.Goal;
import dev.weft.lab.LabResult;
import dev.weft.lab.ScenarioResult;
import java.util.List;
import java.util.Locale;

/** A scenario as the console shows it: an aligned table, its limit, its notes, its error. */
public final class TextReport {

    private TextReport() {
    }

    private static final String RED = "\u001b[1;31m";
    private static final String GREEN = "\u001b[32m";
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
                        .replaceAll("(?m)  met$", "  " + GREEN + "met" + RESET);
            }
            s.append(text);
        }
        for (ScenarioResult r : lab.scenarios()) {
            if (!r.ok()) {
                s.append(String.format(Locale.ROOT, "  %s did not run to the end: FAILED%n", r.name()));
            }
        }
        return s.append('\n').toString();
    }

    /** One line: how many goals were met, not met and not judged, and how many scenarios failed. */
    public static String summary(LabResult lab) {
        List<Goal> goals = lab.goals().stream().map(LabResult.ScenarioGoal::goal).toList();
        long met = goals.stream().filter(g -> Goal.MET.equals(g.verdict())).count();
        long notMet = goals.stream().filter(Goal::failed).count();
        long notJudged = goals.size() - met - notMet;
        long failed = lab.scenarios().stream().filter(r -> !r.ok()).count();
        StringBuilder s = new StringBuilder();
        if (goals.isEmpty()) {
            s.append("no goals to judge");
        } else {
            s.append(met).append(" of ").append(goals.size()).append(goals.size() == 1 ? " goal" : " goals").append(" met");
        }
        if (notMet > 0) {
            s.append(", ").append(notMet).append(" NOT met");
        }
        if (notJudged > 0) {
            s.append(", ").append(notJudged).append(" not judged (smoke run)");
        }
        s.append("; ").append(lab.scenarios().size() - failed).append(" of ").append(lab.scenarios().size())
                .append(lab.scenarios().size() == 1 ? " scenario" : " scenarios").append(" ran to the end");
        return s.toString();
    }

    /** A scenario's heading: its name and title, and whether it missed a goal. */
    public static String heading(ScenarioResult r) {
        return r.name() + ": " + r.title() + (r.missedAGoal() ? " (goals NOT all met)" : "");
    }

    /** The console text of {@code r}, ending with a blank line. */
    public static String scenario(ScenarioResult r) {
        StringBuilder s = new StringBuilder();
        s.append(heading(r)).append('\n');
        Table t = Table.of(r);
        if (!t.rows().isEmpty()) {
            s.append(aligned(t, 2));
        }
        for (Goal g : r.goals()) {
            s.append("  goal: ").append(g.name()).append(": ").append(Table.goalMeasured(g)).append(", ")
                    .append(g.verdictText()).append('\n');
        }
        if (r.limitNote() != null) {
            s.append("  limit: ").append(r.limitNote()).append('\n');
        }
        for (String note : r.notes()) {
            s.append("  note: ").append(note).append('\n');
        }
        if (!r.ok()) {
            s.append("  FAILED: ").append(r.error() == null ? "(no error recorded)" : r.error().replace("\n", "\n          ")).append('\n');
        }
        return s.append('\n').toString();
    }

    private static List<List<String>> concat(Table t) {
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(t.header()), t.rows().stream()).toList();
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
        return c.isEmpty() ? ' ' : c.charAt(0) == '-' || c.charAt(0) == '+' ? (c.length() > 1 ? c.charAt(1) : ' ') : c.charAt(0);
    }

    private static String pad(String cell, int width, boolean right) {
        String fill = " ".repeat(width - cell.length());
        return right ? fill + cell : cell + fill;
    }
}
