package dev.weft.lab.report;

import dev.weft.lab.LabResult;
import dev.weft.lab.ScenarioResult;
import dev.weft.lab.Variant;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * {@code ./weft lab --compare DIR}: sets, on every variant of this run that the previous run
 * (its {@code results.json}) also measured, the previous figure and the change, and whether the
 * change goes beyond the run-to-run spread: the two runs' per-round ranges do not overlap.
 * Scenarios are matched by name and JDK feature release, variants by name.
 */
public final class Comparison {

    private Comparison() {}

    /**
     * Reads the previous run from {@code dir} ({@code dir/results.json}).
     *
     * @throws IllegalArgumentException if there is no results.json there, naming the folder
     */
    public static LabResult readPrevious(Path dir) throws IOException {
        Path file = Files.isDirectory(dir) ? dir.resolve("results.json") : dir;
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("--compare needs the output folder of an earlier ./weft lab run"
                    + " (one with results.json); there is no " + file);
        }
        return Json.read(file, LabResult.class);
    }

    /** {@code current} with each variant's {@link Variant#previous()} filled from {@code previous}. */
    public static LabResult compare(LabResult current, LabResult previous, String previousName) {
        List<ScenarioResult> scenarios = new ArrayList<>();
        for (ScenarioResult s : current.scenarios()) {
            scenarios.add(compare(s, previous));
        }
        return new LabResult(
                current.formatVersion(),
                current.jdk(),
                current.cores(),
                current.mode(),
                current.started(),
                current.seconds(),
                previousName,
                scenarios);
    }

    /**
     * {@code s} with each variant that the previous run also measured (same scenario name and JDK
     * feature release, same variant name and unit) carrying its previous figure and the change.
     */
    public static ScenarioResult compare(ScenarioResult s, LabResult previous) {
        ScenarioResult before = previous.scenarios().stream()
                .filter(p -> p.name().equals(s.name()) && Objects.equals(p.jdkMajor(), s.jdkMajor()))
                .findFirst()
                .orElse(null);
        if (before == null) {
            return s;
        }
        return s.withVariants(s.variants().stream()
                .map(v -> before.variants().stream()
                        .filter(p -> p.name().equals(v.name()) && p.unit().equals(v.unit()))
                        .findFirst()
                        .map(p -> v.withPrevious(previous(v, p)))
                        .orElse(v))
                .toList());
    }

    static Variant.Previous previous(Variant now, Variant then) {
        double change = then.value() == 0 ? 0 : (now.value() - then.value()) / then.value();
        Boolean beyond = now.rounds().isEmpty() || then.rounds().isEmpty()
                ? null
                : max(now.rounds()) < min(then.rounds()) || min(now.rounds()) > max(then.rounds());
        return new Variant.Previous(then.value(), then.rounds(), change, beyond);
    }

    private static double min(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    }

    private static double max(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    }

    /**
     * A change as the reports word it: "+5.2%, worse, beyond the run-to-run spread".
     *
     * @param previous the previous figure
     * @param text     the change in words
     * @param flagged  true when it goes beyond the run-to-run spread
     */
    public record Change(double previous, String text, boolean flagged) {

        /** The change of {@code v}, or null when it was not compared. */
        public static Change of(Variant v) {
            Variant.Previous p = v.previous();
            if (p == null) {
                return null;
            }
            boolean worse = v.lowerIsBetter() ? p.change() > 0 : p.change() < 0;
            String direction = Math.abs(p.change()) < 0.0005 ? "same" : worse ? "worse" : "better";
            String spread = p.beyondSpread() == null
                    ? "no rounds to judge the spread"
                    : p.beyondSpread() ? "BEYOND the run-to-run spread" : "within the run-to-run spread";
            return new Change(
                    p.value(),
                    String.format(Locale.ROOT, "%+.1f%%, %s, %s", 100 * p.change(), direction, spread),
                    Boolean.TRUE.equals(p.beyondSpread()));
        }
    }
}
