package dev.weft.testing;

import static dev.weft.testing.BlockingMarks.BLOCKING;
import static dev.weft.testing.BlockingMarks.marked;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.limit.Limiter;
import dev.weft.scope.Scope;
import dev.weft.scope.Subtask;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * weft-core's methods that wait carry {@code @Blocking} in their class files, where IntelliJ's
 * "possibly blocking call in non-blocking context" inspection reads it (decision 0012).
 */
class BlockingMarksTest {

    @Test
    void theMethodsThatWaitAreMarkedBlocking() {
        // Scope: fork waits for a permit under a cap, join for the forks, close for the cancelled ones.
        assertEquals(Set.of("close()", "fork(Callable)", "join()", "join(Joiner)"), marked(Scope.class, BLOCKING));
        assertEquals(Set.of("await(Duration)"), marked(Subtask.class, BLOCKING));
        assertEquals(Set.of("acquire()", "call(Callable)"), marked(Limiter.class, BLOCKING));
    }

    @Test
    void everyPublicMethodThatThrowsInterruptedExceptionIsMarked() {
        assertEquals(
                new TreeSet<>(),
                BlockingMarks.unmarkedWaits(Scope.class),
                "a public method that can be interrupted waits: mark it @org.jetbrains.annotations.Blocking");
    }
}
