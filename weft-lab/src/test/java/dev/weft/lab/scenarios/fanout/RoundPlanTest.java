package dev.weft.lab.scenarios.fanout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.lab.Goal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** fanout's rounds: planned against the time left (decision 0858), on a clock the test sets. */
class RoundPlanTest {

    private static final List<String> WEFT = List.of("go+weft", "thread+weft", "pipeline-blocking+weft");
    private static final Instant T0 = Instant.parse("2026-11-27T03:00:00Z");
    private static final Duration RUN = Duration.ofMillis(1_250);

    /** A plan of 3-6 rounds, 3 main runs a round and 3 platform runs in the first, 3 s kept, ending {@code budget} after T0. */
    private static RoundPlan plan(Duration budget) {
        return new RoundPlan(3, 6, budget == null ? null : T0.plus(budget), Duration.ofSeconds(3), 3, 3, 1);
    }

    /** Runs {@code round}'s main and +weft parts at RUN a run, from {@code now}; returns when it ends. */
    private static Instant run(RoundPlan plan, RoundPlan.Round round, Instant now) {
        int main = round.main() ? 3 : 0;
        plan.ran(main, RUN.multipliedBy(main));
        plan.ran(round.weftRuns(), RUN.multipliedBy(round.weftRuns()));
        return now.plus(RUN.multipliedBy(plan.runs(round)));
    }

    /** Runs a fresh plan's three minimum rounds, every goal undecided, from T0; returns when they end. */
    private static Instant runMinimum(RoundPlan plan) {
        Instant now = T0;
        for (int i = 0; i < 3; i++) {
            now = run(plan, plan.next(now, true, WEFT, WEFT), now);
        }
        return now;
    }

    @Test
    void theFirstRoundRunsEveryPartEvenPastTheDeadline() {
        RoundPlan plan = plan(Duration.ZERO);
        RoundPlan.Round first = plan.next(T0.plusSeconds(60), true, WEFT, WEFT);
        assertEquals(new RoundPlan.Round(0, true, true, WEFT), first);
        assertEquals(3 + 3 + 4, plan.runs(first), "platform, main, and the +weft variants with one reference");
        assertNull(plan.next(T0.plusSeconds(60), true, WEFT, WEFT), "past the deadline no second round");
        assertEquals(1, plan.count());
    }

    @Test
    void roundsUpToTheMinimumRunWholeWhileTheyFitAndTheBudgetIsNeverOverrun() {
        // 7 runs of 1.25 s a round after the first: three rounds need 12.5 + 8.75 + 8.75 s, and 3 s kept
        RoundPlan roomy = plan(Duration.ofSeconds(34));
        Instant now = T0;
        for (int i = 0; i < 3; i++) {
            RoundPlan.Round r = roomy.next(now, false, List.of(), WEFT);
            assertEquals(new RoundPlan.Round(i, i == 0, true, WEFT), r, "round " + i + " runs whole, decided or not");
            now = run(roomy, r, now);
        }
        assertNull(roomy.next(now, false, List.of(), WEFT), "every goal decided at the minimum: no more");

        // a second plan whose budget is 1 s short of the third round: it stops at two, within the budget
        RoundPlan tight = plan(Duration.ofSeconds(32));
        now = T0;
        for (int i = 0; i < 2; i++) {
            now = run(tight, tight.next(now, true, WEFT, WEFT), now);
        }
        assertNull(tight.next(now, true, WEFT, WEFT), "the third round would end after the deadline less the reserve");
        assertEquals(2, tight.count());
        assertFalse(now.plusSeconds(3).isAfter(T0.plusSeconds(32)), "what ran and the reserve fit: " + now);
    }

    @Test
    void pastTheMinimumOnlyTheUndecidedPartsRunUpToTheMaximum() {
        RoundPlan plan = plan(Duration.ofSeconds(3_600));
        Instant now = runMinimum(plan);
        RoundPlan.Round weftOnly = plan.next(now, false, List.of("pipeline-blocking+weft"), WEFT);
        assertEquals(new RoundPlan.Round(3, false, false, List.of("pipeline-blocking+weft")), weftOnly);
        assertEquals(2, plan.runs(weftOnly), "the variant and the reference of its JVM");
        now = run(plan, weftOnly, now);

        // the +weft variants keep their order, whatever order the undecided ones come in
        RoundPlan.Round both = plan.next(now, true, List.of("pipeline-blocking+weft", "go+weft"), WEFT);
        assertEquals(new RoundPlan.Round(4, false, true, List.of("go+weft", "pipeline-blocking+weft")), both);
        now = run(plan, both, now);
        RoundPlan.Round mainOnly = plan.next(now, true, List.of(), WEFT);
        assertEquals(new RoundPlan.Round(5, false, true, List.of()), mainOnly);
        assertEquals(0, mainOnly.weftRuns());
        now = run(plan, mainOnly, now);
        assertNull(plan.next(now, true, WEFT, WEFT), "the maximum, 6, is reached");
    }

    @Test
    void anAddedRoundIsPlannedAtTheLongestRunSeen() {
        RoundPlan plan = plan(Duration.ofSeconds(40));
        Instant now = runMinimum(plan);
        plan.ran(1, Duration.ofSeconds(4)); // one slow run: the next round is planned at 4 s a run
        // 3 + 4 = 7 runs at 4 s need 28 s and 3 s kept; 40 - 30 = 10 s are left
        assertNull(plan.next(now, true, WEFT, WEFT));
        // one +weft variant and its reference need 8 + 3 s: still 1 s too much
        assertNull(plan.next(now, false, List.of("go+weft"), WEFT));
    }

    @Test
    void withoutADeadlineExactlyTheMinimumRuns() {
        RoundPlan plan = plan(null);
        Instant now = T0;
        int rounds = 0;
        for (RoundPlan.Round r; (r = plan.next(now, true, WEFT, WEFT)) != null; rounds++) {
            now = run(plan, r, now);
        }
        assertEquals(3, rounds, "smoke and full runs: the minimum, inconclusive or not");
    }

    @Test
    void aFullRunMeasuresThePlatformPartInEveryRound() {
        RoundPlan plan = new RoundPlan(5, 5, null, Duration.ZERO, 3, 3, 5);
        Instant now = T0;
        for (int i = 0; i < 5; i++) {
            RoundPlan.Round r = plan.next(now, false, List.of(), WEFT);
            assertTrue(r.platform() && r.main() && r.weft().equals(WEFT), "round " + i + ": " + r);
            now = run(plan, r, now);
        }
        assertNull(plan.next(now, true, WEFT, WEFT));
    }

    @Test
    void theReferenceSitsAmongTheWeftVariants() {
        assertEquals(List.of("a", "virtual-threads", "b", "c"), RoundPlan.weftOrder(List.of("a", "b", "c"), 0));
        assertEquals(List.of("a", "b", "virtual-threads", "c"), RoundPlan.weftOrder(List.of("a", "b", "c"), 1));
        assertEquals(List.of("a", "virtual-threads", "b"), RoundPlan.weftOrder(List.of("a", "b"), 1));
        assertEquals(List.of("virtual-threads", "a"), RoundPlan.weftOrder(List.of("a"), 0));
        assertEquals(List.of("a", "virtual-threads"), RoundPlan.weftOrder(List.of("a"), 1));
        assertEquals(List.of(), RoundPlan.weftOrder(List.of(), 0));
    }

    @Test
    void aGoalIsUndecidedWhileItsIntervalStraddlesTheTarget() {
        assertTrue(Goal.undecided(List.of(), 1.10, Goal.AT_MOST), "no figure yet");
        assertFalse(Goal.undecided(List.of(1.01, 1.03, 1.05), 1.10, Goal.AT_MOST), "all below: met");
        assertFalse(Goal.undecided(List.of(1.12, 1.15, 1.11), 1.10, Goal.AT_MOST), "all above: not met");
        assertTrue(Goal.undecided(List.of(1.05, 1.12, 1.08), 1.10, Goal.AT_MOST), "one round above");
    }

    @Test
    void aPlanOfNoRoundsIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new RoundPlan(0, 3, null, Duration.ZERO, 3, 3, 1));
        assertThrows(IllegalArgumentException.class, () -> new RoundPlan(3, 2, null, Duration.ZERO, 3, 3, 1));
        assertThrows(IllegalArgumentException.class, () -> new RoundPlan(3, 3, null, Duration.ZERO, 0, 3, 1));
        assertThrows(IllegalArgumentException.class, () -> new RoundPlan(3, 3, null, Duration.ZERO, 3, 3, 0));
    }
}
