package dev.weft.pin;

import static dev.weft.testing.BlockingMarks.BLOCKING;
import static dev.weft.testing.BlockingMarks.marked;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weft.recording.EventRecording;
import dev.weft.scheduler.SchedulerSampler;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * weft-diagnostics' methods that wait carry {@code @Blocking} in their class files, where IntelliJ's
 * "possibly blocking call in non-blocking context" inspection reads it (decision 0012).
 */
class BlockingMarksTest {

    @Test
    void theMethodsThatWaitAreMarkedBlocking() {
        // Each waits for JFR to deliver (report, stop, close) or to start (the builder's start).
        assertEquals(Set.of("close()", "report()", "stop()", "sync(Duration)"), marked(PinMonitor.class, BLOCKING));
        assertEquals(Set.of("start()"), marked(PinMonitor.Builder.class, BLOCKING));
        assertEquals(Set.of("end()"), marked(PinCapture.class, BLOCKING));
        assertEquals(
                Set.of(
                        "capture(Body, BodyThread)",
                        "capture(Body, boolean)",
                        "verify(Body, int, String, BodyThread, Function)",
                        "verify(Body, int, String, boolean, Function)"),
                marked(PinCheck.class, BLOCKING));
        assertEquals(Set.of("pin(Duration)", "pinVirtualThread(Duration)"), marked(PinProbe.class, BLOCKING));
        assertEquals(Set.of("close()", "stop()"), marked(StarvationDetector.class, BLOCKING));
        assertEquals(Set.of("stop()"), marked(SchedulerSampler.class, BLOCKING));
        assertEquals(Set.of("stop()"), marked(EventRecording.class, BLOCKING));
    }
}
