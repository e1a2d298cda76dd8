package dev.weft.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The sign-test interval of a median, and the verdicts goals draw from it. */
class ConfidenceTest {

    @Test
    void theNarrowestOrderStatisticIntervalThatReaches95Percent() {
        // 10 figures: [x(2), x(9)] holds the median with 1 - 2 * 11/1024 = 97.85%; [x(3), x(8)] only 89%
        Confidence.Interval ten = Confidence.median(List.of(10.0, 1.0, 9.0, 2.0, 8.0, 3.0, 7.0, 4.0, 6.0, 5.0));
        assertEquals(2.0, ten.low());
        assertEquals(9.0, ten.high());
        assertEquals(1 - 2 * 11 / 1024.0, ten.level(), 1e-12);
        // 6 figures reach 95% only with the whole range: 1 - 2/64
        Confidence.Interval six = Confidence.median(List.of(3.0, 1.0, 2.0, 6.0, 5.0, 4.0));
        assertEquals(List.of(1.0, 6.0, 1 - 2 / 64.0), List.of(six.low(), six.high(), six.level()));
    }

    @Test
    void fewRoundsGiveTheWholeRangeAtTheLevelItHas() {
        Confidence.Interval five = Confidence.median(List.of(1.0, 2.0, 3.0, 4.0, 5.0));
        assertEquals(List.of(1.0, 5.0, 0.9375), List.of(five.low(), five.high(), five.level()));
        assertEquals(0.5, Confidence.median(List.of(1.0, 2.0)).level(), 1e-12);
        Confidence.Interval one = Confidence.median(List.of(4.2));
        assertEquals(4.2, one.low());
        assertEquals(4.2, one.high());
        assertNull(one.level(), "a single figure is its own interval, at no stated level");
        assertThrows(IllegalArgumentException.class, () -> Confidence.median(List.of()));
    }

    @Test
    void aGoalIsMetNotMetOrInconclusiveByWhereItsIntervalLies() {
        List<Double> rounds = List.of(1.01, 1.02, 1.03, 1.04, 1.05, 1.06);
        assertEquals(
                Goal.MET,
                Goal.judge("g", "x", 1.035, 1.10, Goal.AT_MOST, rounds, true).verdict());
        Goal notMet = Goal.judge("g", "x", 1.035, 1.00, Goal.AT_MOST, rounds, true);
        assertEquals(Goal.NOT_MET, notMet.verdict());
        assertEquals(Boolean.FALSE, notMet.met());
        Goal straddles = Goal.judge("g", "x", 1.035, 1.035, Goal.AT_LEAST, rounds, true);
        assertEquals(Goal.INCONCLUSIVE, straddles.verdict(), "the median alone is on the target; the interval is not");
        assertNull(straddles.met());
        assertEquals(6, straddles.roundsUsed());
        assertEquals("inconclusive", straddles.verdictText());
        Goal single = Goal.judge("g", "pins", 0, 0, Goal.AT_MOST, List.of(), true);
        assertEquals(Goal.MET, single.verdict(), "a single figure decides by itself");
        assertEquals(1, single.roundsUsed());
        assertEquals(0.0, single.interval().low());
        assertEquals(
                Goal.NOT_JUDGED,
                Goal.judge("g", "x", 1.035, 1.10, Goal.AT_MOST, rounds, false).verdict());
    }

    @Test
    void theIntervalNarrowsOnlyWhereItsOrderIndexGrows() {
        assertEquals(9, Confidence.roundsToNarrow(6), "6 to 8 figures: the whole range");
        assertEquals(9, Confidence.roundsToNarrow(8));
        assertEquals(12, Confidence.roundsToNarrow(9), "9 to 11: the 2nd to the (n-1)th");
        assertEquals(9, Confidence.roundsToNarrow(2), "fewer than 6 reach 95% only over the whole range too");
        assertEquals(15, Confidence.roundsToNarrow(12));
        assertThrows(IllegalArgumentException.class, () -> Confidence.roundsToNarrow(-1));
        // what roundsToNarrow promises: with k unchanged, more figures never narrow the interval
        List<Double> nine = List.of(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0);
        Confidence.Interval at9 = Confidence.median(nine);
        Confidence.Interval at10 = Confidence.median(List.of(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 5.0));
        assertEquals(List.of(2.0, 8.0), List.of(at9.low(), at9.high()));
        assertEquals(List.of(2.0, 8.0), List.of(at10.low(), at10.high()), "a 10th figure in the middle: as wide");
    }

    @Test
    void anInconclusiveGoalSaysAboutHowManyRoundsWouldDecideIt() {
        // logs of 0.97..1.03 around a median of 1.00: spread 1.4826 x MAD 0.01005; 0.5% from the target
        List<Double> five = List.of(1.03, 0.97, 1.00, 1.01, 0.99);
        assertEquals(54, Confidence.roundsToDecide(five, 0.995).orElseThrow());
        // 2% from the target the same spread decides in fewer rounds than ran: one more, at least
        assertEquals(6, Confidence.roundsToDecide(five, 0.98).orElseThrow());
        // further from the target, fewer rounds: the estimate falls as the square of the distance
        assertEquals(
                211,
                Confidence.roundsToDecide(List.of(0.97, 0.99, 1.00, 1.01, 1.03, 1.05), 1.0)
                        .orElseThrow());
        assertTrue(Confidence.roundsToDecide(five, 1.00).isEmpty(), "a median on its target: no number decides it");
        assertTrue(Confidence.roundsToDecide(List.of(0.9, 1.1), 1.2).isEmpty(), "fewer than 3 rounds");
        assertTrue(Confidence.roundsToDecide(List.of(1.0, 1.0, 1.0), 1.2).isEmpty(), "no spread");
        assertTrue(Confidence.roundsToDecide(List.of(0.0, 1.0, 2.0), 1.2).isEmpty(), "a figure that is not positive");
        assertEquals(
                Confidence.MOST_ROUNDS_ESTIMATED,
                Confidence.roundsToDecide(List.of(0.5, 1.0, 1.0000001, 2.0), 1.0000001)
                        .orElseThrow(),
                "capped");

        Goal straddles = Goal.judge("g", "x", 1.00, 0.995, Goal.AT_LEAST, five, true);
        assertEquals(Goal.INCONCLUSIVE, straddles.verdict());
        assertEquals(54L, straddles.roundsNeeded());
        assertEquals(" (about 54 rounds at this spread would decide it)", straddles.roundsNeededText());
        Goal met = Goal.judge("g", "x", 1.00, 0.90, Goal.AT_LEAST, five, true);
        assertNull(met.roundsNeeded(), "decided");
        assertEquals("", met.roundsNeededText());
        assertNull(Goal.judge("g", "x", 1.00, 0.995, Goal.AT_LEAST, five, false).roundsNeeded(), "not judged");
    }
}
