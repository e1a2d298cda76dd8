package dev.weft.jdbc;

import static dev.weft.testing.BlockingMarks.BLOCKING;
import static dev.weft.testing.BlockingMarks.marked;
import static dev.weft.testing.BlockingMarks.unmarkedWaits;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The DataSource's waits carry {@code @Blocking} in its class file, for IntelliJ (decision 0012). */
class BlockingMarksTest {

    @Test
    void gettingAConnectionAndClosingThePoolAreMarkedBlocking() {
        // getConnection waits for a free connection (or opens one); close waits for borrowed ones.
        assertEquals(
                Set.of("close()", "getConnection()", "getConnection(String, String)"),
                marked(WeftDataSource.class, BLOCKING));
        assertEquals(Set.of(), unmarkedWaits(WeftDataSource.class));
    }
}
