package dev.weft.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** More rounds while a goal is inconclusive, within the budget and the maximum. */
class RoundsTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream progress = new ByteArrayOutputStream();

    private ScenarioContext ctx(Mode mode, Integer budgetSeconds) {
        return new ScenarioContext(mode, new PrintStream(progress, true), dir, budgetSeconds);
    }

    /** Runs rounds whose paired ratio is {@code ratios[i % length]}; returns how many ran. */
    private static int run(Rounds rounds, List<Double> num, List<Double> den, double... ratios) {
        int i = 0;
        while (rounds.another()) {
            den.add(1.0);
            num.add(ratios[i++ % ratios.length]);
        }
        return rounds.count();
    }

    @Test
    void addsRoundsWhileAGoalStraddlesItsTargetUpToTheMaximum() {
        List<Double> num = new ArrayList<>();
        List<Double> den = new ArrayList<>();
        // alternating 0.9 and 1.2 around a target of 1.1: never decided
        Rounds rounds = ctx(Mode.QUICK, 3_600).rounds(4, 9).watch(Goal.AT_MOST, 1.1, num, den);
        assertEquals(9, run(rounds, num, den, 0.9, 1.2));
        assertEquals(9, num.size());
        assertEquals(true, progress.toString().contains("round 5: a goal is still inconclusive; one more round"));
    }

    @Test
    void stopsAtTheMinimumWhenEveryGoalIsDecided() {
        List<Double> num = new ArrayList<>();
        List<Double> den = new ArrayList<>();
        Rounds rounds = ctx(Mode.QUICK, 3_600).rounds(4, 20).watch(Goal.AT_MOST, 1.1, num, den);
        assertEquals(4, run(rounds, num, den, 1.01, 1.02, 1.03));
    }

    @Test
    void stopsOnceTheIntervalDecides() {
        List<Double> num = new ArrayList<>();
        List<Double> den = new ArrayList<>();
        // one outlier above the target among rounds below it: 6 rounds' interval is the whole range
        // (straddles), from 9 rounds on it is the 2nd to 8th figure (96.1%), below the target
        Rounds rounds = ctx(Mode.QUICK, 3_600).rounds(6, 30).watch(Goal.AT_MOST, 1.1, num, den);
        assertEquals(9, run(rounds, num, den, 1.5, 1.01, 1.02, 1.03, 1.04, 1.05, 1.01, 1.02, 1.03, 1.04, 1.05));
    }

    @Test
    void runsNoRoundThatCannotNarrowTheInterval() {
        List<Double> num = new ArrayList<>();
        List<Double> den = new ArrayList<>();
        // 6 to 8 rounds all have the whole range as their interval: a 7th and 8th can only widen it
        Rounds upTo8 = ctx(Mode.QUICK, 3_600).rounds(6, 8).watch(Goal.AT_MOST, 1.1, num, den);
        assertEquals(6, run(upTo8, num, den, 0.9, 1.2));
        num.clear();
        den.clear();
        // up to 10: the 9th narrows it (2nd to 8th figure), a 10th could not narrow it further
        Rounds upTo10 = ctx(Mode.QUICK, 3_600).rounds(6, 10).watch(Goal.AT_MOST, 1.1, num, den);
        assertEquals(9, run(upTo10, num, den, 0.9, 1.2));
        assertEquals(
                true,
                progress.toString().contains("round 7: a goal is still inconclusive; one more round (toward 9,"),
                progress.toString());
    }

    @Test
    void noMoreRoundsInSmokeRunsNorWithoutABudget() {
        List<Double> num = new ArrayList<>();
        List<Double> den = new ArrayList<>();
        assertEquals(
                2, run(ctx(Mode.SMOKE, 3_600).rounds(2, 9).watch(Goal.AT_MOST, 1.1, num, den), num, den, 0.9, 1.2));
        num.clear();
        den.clear();
        assertEquals(2, run(ctx(Mode.QUICK, null).rounds(2, 9).watch(Goal.AT_MOST, 1.1, num, den), num, den, 0.9, 1.2));
        num.clear();
        den.clear();
        // a budget already spent: 0 s from this JVM's start (1 s was not always past when the
        // test ran first in a fresh JVM)
        assertEquals(2, run(ctx(Mode.QUICK, 0).rounds(2, 9).watch(Goal.AT_MOST, 1.1, num, den), num, den, 0.9, 1.2));
    }

    @Test
    void rejectsAnImpossibleRange() {
        assertThrows(IllegalArgumentException.class, () -> ctx(Mode.QUICK, null).rounds(0, 3));
        assertThrows(IllegalArgumentException.class, () -> ctx(Mode.QUICK, null).rounds(5, 3));
    }
}
