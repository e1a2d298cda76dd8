package dev.weft.kotlin;

import static dev.weft.testing.BlockingMarks.BLOCKING_EXECUTOR;
import static dev.weft.testing.BlockingMarks.has;
import static dev.weft.testing.BlockingMarks.read;
import static dev.weft.testing.BlockingMarks.returnTypeMarked;
import static dev.weft.testing.BlockingMarks.unmarkedWaits;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher carries {@code @BlockingExecutor} in its class files, so that IntelliJ accepts
 * blocking calls in {@code withContext(Dispatchers.Virtual)} (decision 0012, article 004). The
 * inspection takes a dispatcher as blocking-friendly when its type, or the type's class, has the
 * mark.
 */
class BlockingMarksTest {

    @Test
    void theDispatcherClassIsABlockingExecutor() {
        assertTrue(
                has(read(VirtualThreadDispatcher.class).invisibleAnnotations, BLOCKING_EXECUTOR),
                "VirtualThreadDispatcher is not marked @BlockingExecutor");
    }

    @Test
    void dispatchersVirtualAndLimitedViewsHaveABlockingExecutorType() {
        assertEquals(Set.of("getVirtual(Dispatchers)"), returnTypeMarked(DispatchersKt.class, BLOCKING_EXECUTOR));
        assertEquals(
                Set.of("limitedParallelism(int, String)"),
                returnTypeMarked(VirtualThreadDispatcher.class, BLOCKING_EXECUTOR));
        assertEquals(Set.of(), unmarkedWaits(VirtualThreadDispatcher.class));
    }
}
