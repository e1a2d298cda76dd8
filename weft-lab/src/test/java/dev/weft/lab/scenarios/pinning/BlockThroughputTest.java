package dev.weft.lab.scenarios.pinning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The overhead goals' block figure (decision 0810): tasks over summed time, not the median. */
class BlockThroughputTest {

    @Test
    void aBlocksThroughputIsItsTasksOverItsSummedTime() {
        // 1,000 tasks at 100,000/s (10 ms) and 1,000 at 50,000/s (20 ms): 2,000 tasks in 30 ms.
        assertEquals(2_000 / 0.030, PinningScenario.throughput(List.of(100_000.0, 50_000.0)), 1e-6);
        assertEquals(80_000.0, PinningScenario.throughput(List.of(80_000.0)), 1e-9);
    }

    @Test
    void aSlowOperationCountsInFullWhereTheMedianWouldHideIt() {
        // one operation in five taking twice as long: the median says nothing changed
        List<Double> oneSlow = List.of(80_000.0, 80_000.0, 40_000.0, 80_000.0, 80_000.0);
        double figure = PinningScenario.throughput(oneSlow);
        assertEquals(80_000.0 * 5 / 6, figure, 1e-6);
        assertTrue(figure < dev.weft.lab.Stats.median(oneSlow));
    }

    @Test
    void noOperationsIsAnError() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> PinningScenario.throughput(List.of()));
        assertTrue(e.getMessage().contains("at least one"), e.getMessage());
    }

    @Test
    void aBlockRunsItsOperationsOnceEachAndGivesEachOnesThroughput() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        List<Double> figures = PinningScenario.block(4, () -> {
            runs.incrementAndGet();
            Thread.sleep(1);
            return 10;
        });
        assertEquals(4, runs.get());
        assertEquals(4, figures.size());
        // 10 tasks in at least 1 ms each: at most 10,000 tasks/s, whatever the machine's load
        figures.forEach(f -> assertTrue(f > 0 && f <= 10_000, figures.toString()));
    }
}
