package dev.weft.junit;

import static dev.weft.testing.BlockingMarks.BLOCKING;
import static dev.weft.testing.BlockingMarks.marked;
import static dev.weft.testing.BlockingMarks.unmarkedWaits;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The pin assertions wait for their body and for JFR: {@code @Blocking}, for IntelliJ (decision 0012). */
class BlockingMarksTest {

    @Test
    void thePinAssertionsAreMarkedBlocking() {
        assertEquals(
                Set.of("assertNoPins(Executable)", "assertPins(Executable)"), marked(PinAssertions.class, BLOCKING));
        assertEquals(Set.of(), unmarkedWaits(PinAssertions.class));
    }
}
