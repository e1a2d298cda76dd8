package dev.weft.lab.scenarios.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pool scenario's pairing orders (decision 0820): what makes its paired ratios comparable. */
class PoolRoundsTest {

    @Test
    void aFullRoundRunsEveryPoolOnceWithTheComparedPairLastAndSideBySide() {
        List<String> order = PoolScenario.FULL_ROUND_ORDER;
        assertEquals(Pools.NAMES.size(), order.size(), "every pool once: " + order);
        assertEquals(new HashSet<>(Pools.NAMES), new HashSet<>(order), "the same pools as Pools.NAMES");
        assertEquals(List.of("hikaricp", "weft-pool"), order.subList(order.size() - 2, order.size()));
    }

    @Test
    void fastQuerySlicesGiveEachPoolTheSameMeanPositionAndAlternateTheOpener() {
        for (int r = 0; r < 4; r++) {
            List<String> slices = FastQueries.slices(r);
            assertEquals(4, slices.size(), "two slices per pool: " + slices);
            for (String pool : FastQueries.POOLS) {
                int positions = 0;
                int count = 0;
                for (int i = 0; i < slices.size(); i++) {
                    if (slices.get(i).equals(pool)) {
                        positions += i;
                        count++;
                    }
                }
                assertEquals(2, count, pool + " in round " + r + ": " + slices);
                // 0 + 3 or 1 + 2: the same mean position, so a linear drift falls on both alike
                assertEquals(3, positions, pool + "'s positions in round " + r + ": " + slices);
            }
            assertNotEquals(slices.getFirst(), FastQueries.slices(r + 1).getFirst(), "the opener alternates");
        }
    }

    @Test
    void theLimitGoalDividesEachRoundByTheDatabaseAloneOfThatRound() {
        // 1,900 and 1,800 queries/s against measured limits of 1,950 and 1,900: round by round, not by
        // a median of either, and only the rounds both have (a third run with no measurement is left out)
        List<PoolScenario.Run> runs = List.of(run(1_900), run(1_800), run(1_700));
        List<DatabaseAlone.Measured> database =
                List.of(new DatabaseAlone.Measured(20 / 1.95, 1_950), new DatabaseAlone.Measured(20 / 1.9, 1_900));
        List<Double> ratios = PoolScenario.toMeasuredLimit(runs, database);
        assertEquals(2, ratios.size(), "the rounds both have: " + ratios);
        assertEquals(1_900.0 / 1_950, ratios.get(0), 1e-12);
        assertEquals(1_800.0 / 1_900, ratios.get(1), 1e-12);
    }

    @Test
    void aWarmUpKeptForItsFreezeIsNoRound() {
        // a pool whose warm-up froze keeps that run for the report; its first round must still pair
        // with the database alone of round 1, not be shifted by one
        List<PoolScenario.Run> runs = List.of(run(300).asWarmUp(), run(1_900), run(1_800));
        List<DatabaseAlone.Measured> database =
                List.of(new DatabaseAlone.Measured(20 / 1.95, 1_950), new DatabaseAlone.Measured(20 / 1.9, 1_900));
        List<PoolScenario.Run> rounds = PoolScenario.measured(runs);
        assertEquals(List.of(runs.get(1), runs.get(2)), rounds);
        assertEquals(List.of(1_900.0 / 1_950, 1_800.0 / 1_900), PoolScenario.toMeasuredLimit(rounds, database));
    }

    /** A steady run of {@code qps} queries in one second. */
    private static PoolScenario.Run run(long qps) {
        Instant now = Instant.now();
        return new PoolScenario.Run(
                now, now, qps, 1.0, 0.1, new long[0], null, null, Double.NaN, Double.NaN, null, 2, 0, 2, false);
    }
}
