package dev.weft.lab;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * A scenario's loop of rounds that runs more of them while a goal is inconclusive and the budget
 * allows (decision 0804); get one from {@link ScenarioContext#rounds(int, int)}.
 *
 * <p>Before each round, {@link #another()} says whether to run it: always up to the minimum; past
 * it, only while some watched goal's {@link Confidence} interval still straddles its target and
 * the rounds up to the next count whose interval can be narrower ({@link
 * Confidence#roundsToNarrow}: 9 after 6, 12 after 9) are within the maximum and fit before the
 * scenario's deadline: its budget from its JVM's start, less {@link #reserve(Duration)} for what
 * the scenario does after the rounds, counting one of them as long as the longest round so far and
 * the others as the rounds' mean. A round short of that count cannot decide a goal, only spend the
 * budget (decision 0884). Not thread-safe: one scenario thread drives it.
 */
public final class Rounds {

    private final ScenarioContext ctx;
    private final int minimum;
    private final int maximum;
    private final Instant deadline;
    private final List<Watched> watched = new ArrayList<>();
    private Duration reserve = Duration.ZERO;
    private int count;
    private long lastStart;
    private long longest;
    private long total; // of the rounds that ended

    private record Watched(String direction, double target, Supplier<List<Double>> perRound) {}

    Rounds(ScenarioContext ctx, int minimum, int maximum, Instant deadline) {
        if (minimum < 1 || maximum < minimum) {
            throw new IllegalArgumentException(
                    "rounds need 1 <= minimum <= maximum; got " + minimum + " and " + maximum);
        }
        this.ctx = ctx;
        this.minimum = minimum;
        this.maximum = maximum;
        this.deadline = deadline;
    }

    /**
     * Watches a goal judged on the median of paired ratios {@code numerators[i] / denominators[i]};
     * the lists are read anew before each extra round, so pass the lists the rounds fill.
     */
    public Rounds watch(
            String direction, double target, List<? extends Number> numerators, List<? extends Number> denominators) {
        return watch(direction, target, () -> {
            List<Double> ratios = new ArrayList<>();
            for (int i = 0; i < Math.min(numerators.size(), denominators.size()); i++) {
                ratios.add(numerators.get(i).doubleValue() / denominators.get(i).doubleValue());
            }
            return ratios;
        });
    }

    /** Watches a goal judged on the median of the per-round figures {@code perRound} gives. */
    public Rounds watch(String direction, double target, Supplier<List<Double>> perRound) {
        if (!Goal.AT_MOST.equals(direction) && !Goal.AT_LEAST.equals(direction)) {
            throw new IllegalArgumentException("a goal's direction is at_most or at_least; got " + direction);
        }
        watched.add(new Watched(direction, target, perRound));
        return this;
    }

    /** Keeps {@code time} of the budget for what the scenario does after its rounds. */
    public Rounds reserve(Duration time) {
        this.reserve = time;
        return this;
    }

    /** True when another round should run; counts it. Call once before each round. */
    public boolean another() {
        long now = System.nanoTime();
        if (count > 0) {
            longest = Math.max(longest, now - lastStart);
            total += now - lastStart;
        }
        int step = Confidence.roundsToNarrow(count);
        boolean run = count < minimum || (step <= maximum && undecided() && fits(step - count));
        if (run) {
            if (count >= minimum) {
                ctx.progress(String.format(
                        Locale.ROOT,
                        "round %d: a goal is still inconclusive; one more round (toward %d, where its interval"
                                + " can narrow; at most %d)",
                        count + 1,
                        step,
                        maximum));
            }
            count++;
            lastStart = System.nanoTime();
        }
        return run;
    }

    /** The rounds started so far. */
    public int count() {
        return count;
    }

    private boolean undecided() {
        for (Watched w : watched) {
            List<Double> figures = w.perRound().get();
            if (figures.isEmpty() || figures.stream().anyMatch(f -> !Double.isFinite(f))) {
                continue;
            }
            if (Goal.undecided(figures, w.target(), w.direction())) {
                return true;
            }
        }
        return false;
    }

    /**
     * True when {@code rounds} more end before the deadline less the reserve: one as long as the
     * longest so far, the others as long as the rounds' mean (one slow round should not count
     * three times over when three are needed).
     */
    private boolean fits(int rounds) {
        if (deadline == null) {
            return false;
        }
        long mean = count == 0 ? 0 : total / count;
        Instant end = Instant.now().plusNanos(longest + (rounds - 1) * mean).plus(reserve);
        return !end.isAfter(deadline);
    }
}
