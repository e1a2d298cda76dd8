package dev.weft.lab.report;

import dev.weft.lab.LabResult;
import dev.weft.lab.ScenarioResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** {@code report.md}: one section per scenario with its table, limit, notes and error. */
public final class MarkdownReport {

    private MarkdownReport() {}

    /** Writes the report of {@code lab} to {@code file}. */
    public static void write(Path file, LabResult lab) throws IOException {
        Files.writeString(file, render(lab));
    }

    /** The report of {@code lab} as Markdown. */
    public static String render(LabResult lab) {
        StringBuilder s = new StringBuilder("# weft lab\n\n");
        s.append("JDK ")
                .append(lab.jdk())
                .append(", ")
                .append(lab.cores())
                .append(" cores, ")
                .append(lab.mode())
                .append(" mode, started ")
                .append(lab.started())
                .append(".\n\n");
        s.append("## Verdict\n\n")
                .append(TextReport.summary(lab).replace("NOT met", "**NOT met**"))
                .append(".\n\n");
        Table goals = Table.goals(lab);
        if (!goals.rows().isEmpty()) {
            row(s, goals.header());
            row(s, goals.header().stream().map(h -> "---").toList());
            goals.rows()
                    .forEach(r -> row(
                            s,
                            r.stream()
                                    .map(c -> c.equals("NOT met")
                                            ? "❌ **NOT met**"
                                            : c.equals("met")
                                                    ? "✅ met"
                                                    : c.equals("inconclusive") ? "❔ inconclusive" : c)
                                    .toList()));
            s.append('\n');
        }
        for (String line : TextReport.busyMachine(lab)) {
            s.append("⚠️ ").append(line.replace("BUSY", "**busy**")).append(".\n\n");
        }
        s.append("Every figure was measured on this machine in this run; *limit* is the physical ceiling ")
                .append(
                        "(for a rate) or floor (for a time) of the variant here, *published* what the article reported ")
                .append("on its own machine. A goal's figure is the median of its per-round figures or paired ")
                .append(
                        "per-round ratios, with their range; its verdict is decided on the confidence interval of that ")
                .append(
                        "median (the sign test's, at 95% where the rounds allow it, else at the level stated): met or NOT ")
                .append("met when the whole interval is on one side of the target, inconclusive when it straddles it ")
                .append("(doc/results.md).\n");
        if (lab.comparedWith() != null) {
            s.append("\nCompared with the run in `")
                    .append(lab.comparedWith())
                    .append("`: a change is flagged when the ")
                    .append("two runs' per-round ranges do not overlap.\n");
        }
        for (ScenarioResult r : lab.scenarios()) {
            s.append("\n## ")
                    .append(TextReport.heading(r))
                    .append(Table.jdkSuffix(r, lab))
                    .append("\n\n");
            s.append("Source: ").append(r.source()).append("  \n");
            s.append(r.ok() ? "Status: ran to the end" : "Status: **failed**")
                    .append(String.format(java.util.Locale.ROOT, " in %.1f s", r.seconds()))
                    .append(r.budgetSeconds() == null ? "" : " (budget " + r.budgetSeconds() + " s)")
                    .append(r.jdk() == null ? "" : ", JDK " + r.jdk())
                    .append("\n\n");
            for (dev.weft.lab.Goal g : r.goals()) {
                s.append("- Goal: ")
                        .append(g.name())
                        .append(": ")
                        .append(Table.goalMeasured(g))
                        .append(", interval ")
                        .append(Table.goalInterval(g))
                        .append(", ")
                        .append(g.failed() ? "**NOT met**" : g.verdictText())
                        .append(g.roundsNeededText())
                        .append('\n');
            }
            if (!r.goals().isEmpty()) {
                s.append('\n');
            }
            Table t = Table.of(r);
            if (!t.rows().isEmpty()) {
                row(s, t.header());
                row(s, t.header().stream().map(h -> "---").toList());
                t.rows().forEach(row -> row(s, row));
                s.append('\n');
            }
            if (r.limitNote() != null) {
                s.append("**Limit.** ").append(r.limitNote()).append("\n\n");
            }
            for (String note : r.notes()) {
                s.append("- ").append(note).append('\n');
            }
            if (!r.notes().isEmpty()) {
                s.append('\n');
            }
            if (!r.ok()) {
                s.append("```\n").append(r.error()).append("\n```\n");
            }
        }
        return s.toString();
    }

    private static void row(StringBuilder s, List<String> cells) {
        s.append("| ")
                .append(String.join(
                        " | ", cells.stream().map(c -> c.replace("|", "\\|")).toList()))
                .append(" |\n");
    }
}
