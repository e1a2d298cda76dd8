package dev.weft.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.testing.WeftRecordings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The limiter's JFR event in a real recording, read back with RecordingFile and with the JDK's jfr tool. */
class LimiterRejectionEventTest {

    @TempDir
    Path dir;

    private List<RecordedEvent> record(Runnable body, String... enabled) throws IOException {
        return WeftRecordings.record(dir, body, enabled);
    }

    private static void rejectTwice() {
        Limiter db = Limiter.builder("db", 1).maxWaiting(0).build();
        Limiter slow = Limiter.builder("slow", 1).maxWait(Duration.ofMillis(5)).build();
        try (Limiter.Permit a = db.acquire();
                Limiter.Permit b = slow.acquire()) {
            assertThrows(LimitExceededException.class, () -> db.call(() -> 1));
            assertThrows(LimitExceededException.class, () -> slow.call(() -> 1));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aLimiterRejectionIsAnEventWithTheLimitersFigures() throws IOException {
        List<RecordedEvent> events = record(LimiterRejectionEventTest::rejectTwice, LimiterRejectionEvent.NAME);
        assertEquals(2, events.size(), events.toString());
        RecordedEvent full = events.get(0);
        assertEquals(LimiterRejectionEvent.NAME, full.getEventType().getName());
        assertEquals("db", full.getString("limiter"));
        assertEquals(1, full.getInt("permits"));
        assertEquals(0, full.getInt("maxWaiting"));
        assertEquals(Duration.ZERO, full.getDuration("waited"));
        assertTrue(
                full.getStackTrace() != null
                        && !full.getStackTrace().getFrames().isEmpty(),
                "the rejected caller's stack");
        RecordedEvent timedOut = events.get(1);
        assertEquals("slow", timedOut.getString("limiter"));
        assertEquals(Duration.ofMillis(5), timedOut.getDuration("waited"));
    }

    @Test
    void offUnlessARecordingEnablesIt() throws IOException {
        assertEquals(List.of(), record(LimiterRejectionEventTest::rejectTwice));
    }

    @Test
    void jfrPrintShowsThem() throws Exception {
        record(LimiterRejectionEventTest::rejectTwice, LimiterRejectionEvent.NAME);
        Path jfr = Path.of(System.getProperty("java.home"), "bin", "jfr");
        Process p = new ProcessBuilder(
                        jfr.toString(),
                        "print",
                        "--events",
                        LimiterRejectionEvent.NAME,
                        dir.resolve("weft.jfr").toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "jfr print ended");
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("dev.weft.LimiterRejection {") && out.contains("limiter = \"db\""), out);
    }
}
