package dev.weft.lab.report;

import dev.weft.lab.ScenarioResult;
import java.util.List;

/** A scenario as the console shows it: an aligned table, its limit, its notes, its error. */
public final class TextReport {

    private TextReport() {
    }

    /** The console text of {@code r}, ending with a blank line. */
    public static String scenario(ScenarioResult r) {
        StringBuilder s = new StringBuilder();
        s.append(r.name()).append(": ").append(r.title()).append('\n');
        Table t = Table.of(r);
        if (!t.rows().isEmpty()) {
            int[] widths = new int[t.header().size()];
            for (List<String> row : concat(t)) {
                for (int i = 0; i < row.size(); i++) {
                    widths[i] = Math.max(widths[i], row.get(i).length());
                }
            }
            appendRow(s, t.header(), widths);
            StringBuilder rule = new StringBuilder("  ");
            for (int w : widths) {
                rule.append("-".repeat(w)).append("  ");
            }
            s.append(rule.toString().stripTrailing()).append('\n');
            for (List<String> row : t.rows()) {
                appendRow(s, row, widths);
            }
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

    private static void appendRow(StringBuilder s, List<String> row, int[] widths) {
        StringBuilder line = new StringBuilder("  ");
        for (int i = 0; i < row.size(); i++) {
            String cell = row.get(i);
            // names left, figures right
            line.append(i == 0 ? pad(cell, widths[i], false) : pad(cell, widths[i], true)).append("  ");
        }
        s.append(line.toString().stripTrailing()).append('\n');
    }

    private static String pad(String cell, int width, boolean right) {
        String fill = " ".repeat(width - cell.length());
        return right ? fill + cell : cell + fill;
    }
}
