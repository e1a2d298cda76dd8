package dev.weft.pool;

import static dev.weft.testing.BlockingMarks.BLOCKING;
import static dev.weft.testing.BlockingMarks.marked;
import static dev.weft.testing.BlockingMarks.unmarkedWaits;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The pool's waits carry {@code @Blocking} in its class file, for IntelliJ (decision 0012). */
class BlockingMarksTest {

    @Test
    void borrowingAndClosingAreMarkedBlocking() {
        // borrow parks for a free resource; close waits up to closeTimeout for borrowed resources.
        assertEquals(
                Set.of("borrow()", "borrow(Duration)", "borrow(Duration, Function)", "close()", "close(Duration)"),
                marked(Pool.class, BLOCKING));
        assertEquals(
                new TreeSet<>(),
                unmarkedWaits(Pool.class),
                "a public method that can be interrupted waits: mark it @org.jetbrains.annotations.Blocking");
    }
}
