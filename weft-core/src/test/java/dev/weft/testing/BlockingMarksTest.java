package dev.weft.testing;

import static dev.weft.testing.BlockingMarks.BLOCKING;
import static dev.weft.testing.BlockingMarks.marked;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.limit.Limiter;
import dev.weft.pin.PinCapture;
import dev.weft.pin.PinCheck;
import dev.weft.pin.PinMonitor;
import dev.weft.pin.PinProbe;
import dev.weft.pin.StarvationDetector;
import dev.weft.scope.Scope;
import dev.weft.scope.Subtask;
import dev.weft.thread.SchedulerSampler;
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
        // Each waits for JFR to deliver (report, stop, close) or to start (the builder's start).
        assertEquals(Set.of("close()", "report()", "stop()", "sync(Duration)"), marked(PinMonitor.class, BLOCKING));
        assertEquals(Set.of("start()"), marked(PinMonitor.Builder.class, BLOCKING));
        assertEquals(Set.of("end()"), marked(PinCapture.class, BLOCKING));
        assertEquals(Set.of("capture(Body, boolean)", "verify(Body, int, String, boolean, Function)"),
                marked(PinCheck.class, BLOCKING));
        assertEquals(Set.of("pin(Duration)", "pinVirtualThread(Duration)"), marked(PinProbe.class, BLOCKING));
        assertEquals(Set.of("close()", "stop()"), marked(StarvationDetector.class, BLOCKING));
        assertEquals(Set.of("stop()"), marked(SchedulerSampler.class, BLOCKING));
    }

    @Test
    void everyPublicMethodThatThrowsInterruptedExceptionIsMarked() {
        assertEquals(new TreeSet<>(), BlockingMarks.unmarkedWaits(Scope.class),
                "a public method that can be interrupted waits: mark it @org.jetbrains.annotations.Blocking");
    }
}
