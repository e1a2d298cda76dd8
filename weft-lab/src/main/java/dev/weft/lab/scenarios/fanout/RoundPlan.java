package dev.weft.lab.scenarios.fanout;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The {@code fanout} scenario's rounds, planned against the time its budget has left (decision
 * 0858): which rounds run and what each one runs.
 *
 * <p>A round has up to three parts, each a number of runs of one fan-out (about the server's wait,
 * 1 s, each): the <em>main</em> part in the scenario's JVM (the {@code virtual-threads} reference
 * and weft's own variants, whose goals pair with that reference), the <em>platform</em> part in the
 * same JVM (core.async's three variants on its own platform pools: they decide no goal, so in a quick
 * run they run in the first round only), and the <em>+weft</em> part in the JVM where weft is core.async's
 * executor factory (the +weft variants, with a {@code virtual-threads} reference of that JVM among
 * them, {@link #weftOrder}).
 *
 * <p>The first round always runs, so that every variant is reported; the platform part runs in the
 * first {@code platformRounds} rounds (one in quick runs, every round in full ones). Any later round runs only when
 * its runs, each as long as the longest run seen so far, end before the deadline less the reserve
 * (what the scenario does after its rounds): the scenario keeps its budget by construction, and a
 * loaded machine gets fewer rounds (and wider intervals), not an overrun. Up to the minimum a round
 * runs its main and +weft parts whole; past it, up to the maximum, only the parts whose goals are
 * still inconclusive, and only the +weft variants whose goal is. Without a deadline (smoke and full
 * runs) exactly the minimum runs.
 *
 * <p>Not thread-safe: the scenario's thread drives it.
 */
public final class RoundPlan {

    /** The name of the reference variant, in both JVMs. */
    public static final String REFERENCE = "virtual-threads";

    private final int minimum;
    private final int maximum;
    private final Instant deadline;
    private final Duration reserve;
    private final int mainRuns;
    private final int platformRuns;
    private final int platformRounds;
    private int started;
    private Duration longestRun = Duration.ZERO;

    /**
     * One round: its number (from 0), whether it runs the platform and main parts, and the +weft
     * variants it runs (none: no +weft part).
     */
    public record Round(int index, boolean platform, boolean main, List<String> weft) {

        /** A round; {@code weft} is copied. */
        public Round {
            weft = List.copyOf(weft);
        }

        /** The runs of its +weft part: its variants and one reference run, or none. */
        public int weftRuns() {
            return weft.isEmpty() ? 0 : weft.size() + 1;
        }
    }

    /**
     * A plan.
     *
     * @param minimum      the rounds every goal gets when the budget allows (at least 1)
     * @param maximum      the most rounds, the added ones included (at least {@code minimum})
     * @param deadline     when the scenario's budget ends, or null for none (then exactly {@code minimum})
     * @param reserve      the time kept for what follows the rounds
     * @param mainRuns     the runs of the main part
     * @param platformRuns the runs of the platform part
     * @param platformRounds the first rounds that run the platform part (at least 1: every variant is reported)
     */
    public RoundPlan(
            int minimum,
            int maximum,
            Instant deadline,
            Duration reserve,
            int mainRuns,
            int platformRuns,
            int platformRounds) {
        if (minimum < 1 || maximum < minimum) {
            throw new IllegalArgumentException(
                    "fanout's rounds need 1 <= minimum <= maximum; got " + minimum + " and " + maximum);
        }
        if (mainRuns < 1 || platformRuns < 0) {
            throw new IllegalArgumentException(
                    "a round's main part needs a run and its platform part none or more; got " + mainRuns + " and "
                            + platformRuns);
        }
        if (platformRounds < 1) {
            throw new IllegalArgumentException(
                    "the platform part runs in the first round at least; got " + platformRounds + " rounds");
        }
        this.minimum = minimum;
        this.maximum = maximum;
        this.deadline = deadline;
        this.reserve = Objects.requireNonNull(reserve, "reserve");
        this.mainRuns = mainRuns;
        this.platformRuns = platformRuns;
        this.platformRounds = platformRounds;
    }

    /** The runs {@code round} makes, in both JVMs. */
    public int runs(Round round) {
        return (round.platform() ? platformRuns : 0) + (round.main() ? mainRuns : 0) + round.weftRuns();
    }

    /**
     * The next round to run, or null when the rounds are over; counts it.
     *
     * @param now            the time now
     * @param mainUndecided  true while a goal of the main part is inconclusive
     * @param weftUndecided  the +weft variants whose goal is inconclusive
     * @param weft           every +weft variant, in the order to hand them over
     */
    public Round next(Instant now, boolean mainUndecided, List<String> weftUndecided, List<String> weft) {
        if (started >= maximum) {
            return null;
        }
        Round round;
        if (started < minimum) {
            round = new Round(started, platformRuns > 0 && started < platformRounds, true, weft);
        } else {
            if (!mainUndecided && weftUndecided.isEmpty()) {
                return null;
            }
            round = new Round(
                    started,
                    false,
                    mainUndecided,
                    weft.stream().filter(weftUndecided::contains).toList());
        }
        if (started > 0 && !fits(round, now)) {
            return null;
        }
        started++;
        return round;
    }

    /**
     * Records that a main or +weft part of {@code runs} runs took {@code took}: a later round is
     * planned at the longest such mean run. (The platform part runs once and is not recorded: its
     * runs, a thousand platform threads each, are longer than any later round's.)
     */
    public void ran(int runs, Duration took) {
        if (runs > 0) {
            Duration perRun = took.dividedBy(runs);
            if (perRun.compareTo(longestRun) > 0) {
                longestRun = perRun;
            }
        }
    }

    /** The rounds started so far. */
    public int count() {
        return started;
    }

    /** True when {@code round}'s runs, at the longest run seen, and the reserve end before the deadline. */
    boolean fits(Round round, Instant now) {
        if (started < minimum && deadline == null) {
            return true;
        }
        if (deadline == null) {
            return false;
        }
        Instant end = now.plus(longestRun.multipliedBy(runs(round))).plus(reserve);
        return !end.isAfter(deadline);
    }

    /**
     * The order of a +weft part: the variants as given (shuffled by the caller), with one run of the
     * reference among them: at index {@code (k + round % 2) / 2} of k variants, so that with three
     * it sits second or third by turns (two of the three next to it, the third one run further), with
     * two between them, and with one after it or before it by turns.
     */
    public static List<String> weftOrder(List<String> variants, int round) {
        List<String> order = new ArrayList<>(variants);
        if (!order.isEmpty()) {
            order.add((order.size() + Math.floorMod(round, 2)) / 2, REFERENCE);
        }
        return order;
    }
}
