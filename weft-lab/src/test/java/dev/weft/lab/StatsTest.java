package dev.weft.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class StatsTest {

    @Test
    void medianOfOddAndEvenCountsIgnoresOrderAndDoesNotSortTheCallersArray() {
        double[] values = {5, 1, 3};
        assertEquals(3, Stats.median(values));
        assertEquals(5, values[0], "the caller's array is left as it was");
        assertEquals(2.5, Stats.median(4, 1, 2, 3));
        assertEquals(7, Stats.median(List.of(7)));
        assertEquals(1.5, Stats.median(List.of(1, 2L)));
    }

    @Test
    void noValuesIsAnErrorThatSaysWhatToDo() {
        var e = assertThrows(IllegalArgumentException.class, () -> Stats.median());
        assertTrue(e.getMessage().contains("measure at least one run"), e.getMessage());
    }

    @Test
    void verdictsAreWordedOneWayAndNotGivenOnSmokeSizes(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        ScenarioContext quick = new ScenarioContext(Mode.QUICK, System.out, dir);
        assertEquals("met", quick.verdict(true));
        assertEquals("NOT met", quick.verdict(false));
        assertEquals("not judged (smoke run)", new ScenarioContext(Mode.SMOKE, System.out, dir).verdict(true));
    }
}
