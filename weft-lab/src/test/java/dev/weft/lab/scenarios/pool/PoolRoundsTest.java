package dev.weft.lab.scenarios.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

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
}
