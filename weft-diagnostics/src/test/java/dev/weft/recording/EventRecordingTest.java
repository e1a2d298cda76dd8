package dev.weft.recording;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import jdk.jfr.Event;
import jdk.jfr.Name;
import org.junit.jupiter.api.Test;

class EventRecordingTest {

    @Name("dev.weft.test.Tick")
    static final class Tick extends Event {
        long n;
    }

    @Test
    void deliversEveryEventCommittedBeforeStop() {
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        try (EventRecording r = EventRecording.start(e -> seen.add(e.getLong("n")), "dev.weft.test.Tick")) {
            for (long i = 0; i < 100; i++) {
                Tick t = new Tick();
                t.n = i;
                t.commit();
            }
            r.stop();
            assertEquals(100, seen.size(), "stop() returns once every event was delivered");
            r.stop(); // again: nothing
        }
    }

    @Test
    void recordsVirtualThreadStartsWithStacksWhenAsked() throws Exception {
        Set<Boolean> stacks = ConcurrentHashMap.newKeySet();
        try (EventRecording r = EventRecording.start(
                Duration.ZERO, true, e -> stacks.add(e.getStackTrace() != null), "jdk.VirtualThreadStart")) {
            Thread.ofVirtual().start(() -> {}).join();
            r.stop();
        }
        assertEquals(Set.of(true), stacks);
    }

    @Test
    void badArgumentsNameTheProblem() {
        var none = assertThrows(IllegalArgumentException.class, () -> EventRecording.start(e -> {}));
        assertTrue(none.getMessage().contains("name at least one JFR event"), none.getMessage());
        var blank = assertThrows(IllegalArgumentException.class, () -> EventRecording.start(e -> {}, " "));
        assertTrue(blank.getMessage().contains("blank"), blank.getMessage());
        var negative = assertThrows(
                IllegalArgumentException.class,
                () -> EventRecording.start(Duration.ofMillis(-1), false, e -> {}, "jdk.VirtualThreadStart"));
        assertTrue(negative.getMessage().contains("threshold"), negative.getMessage());
    }
}
