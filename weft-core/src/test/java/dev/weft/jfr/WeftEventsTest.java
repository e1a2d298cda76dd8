package dev.weft.jfr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.limit.LimitExceededException;
import dev.weft.limit.Limiter;
import dev.weft.scope.Scope;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** weft's JFR events in a real recording, read back with RecordingFile and with the JDK's jfr tool. */
class WeftEventsTest {

    @TempDir
    Path dir;

    /** Runs {@code body} in a recording with {@code enabled} events on; returns weft's events from the file. */
    private List<RecordedEvent> record(Runnable body, String... enabled) throws IOException {
        Path file = dir.resolve("weft.jfr");
        try (Recording r = new Recording()) {
            for (String name : enabled) {
                r.enable(name);
            }
            r.start();
            body.run();
            r.stop();
            r.dump(file);
        }
        return RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().startsWith("dev.weft."))
                .toList();
    }

    private static void rejectTwice() {
        Limiter db = Limiter.builder("db", 1).maxWaiting(0).build();
        Limiter slow = Limiter.builder("slow", 1).maxWait(Duration.ofMillis(5)).build();
        try (Limiter.Permit a = db.acquire(); Limiter.Permit b = slow.acquire()) {
            assertThrows(LimitExceededException.class, () -> db.call(() -> 1));
            assertThrows(LimitExceededException.class, () -> slow.call(() -> 1));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aLimiterRejectionIsAnEventWithTheLimitersFigures() throws IOException {
        List<RecordedEvent> events = record(WeftEventsTest::rejectTwice, LimiterRejectionEvent.NAME);
        assertEquals(2, events.size(), events.toString());
        RecordedEvent full = events.get(0);
        assertEquals(LimiterRejectionEvent.NAME, full.getEventType().getName());
        assertEquals("db", full.getString("limiter"));
        assertEquals(1, full.getInt("permits"));
        assertEquals(0, full.getInt("maxWaiting"));
        assertEquals(Duration.ZERO, full.getDuration("waited"));
        assertTrue(full.getStackTrace() != null && !full.getStackTrace().getFrames().isEmpty(), "the rejected caller's stack");
        RecordedEvent timedOut = events.get(1);
        assertEquals("slow", timedOut.getString("limiter"));
        assertEquals(Duration.ofMillis(5), timedOut.getDuration("waited"));
    }

    private static void threeScopes() {
        try (Scope ok = Scope.builder().name("ok").open()) {
            ok.fork(() -> 1);
            ok.fork(() -> 2);
            ok.join();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        try (Scope bad = Scope.builder().name("bad").policy(Scope.Policy.FIRST_SUCCESS).open()) {
            bad.fork(() -> {
                throw new IllegalStateException("boom");
            });
            assertThrows(IllegalStateException.class, bad::join);
        }
        try (Scope late = Scope.builder().name("late").timeout(Duration.ofMillis(20)).open()) {
            late.fork(() -> {
                Thread.sleep(10_000);
                return 0;
            });
            assertThrows(java.util.concurrent.TimeoutException.class, late::join);
        }
    }

    @Test
    void aScopeIsADurationEventWithItsPolicyForksAndOutcome() throws IOException {
        List<RecordedEvent> events = record(WeftEventsTest::threeScopes, ScopeEvent.NAME);
        assertEquals(List.of("ok ALL_SUCCEED 2 succeeded", "bad FIRST_SUCCESS 1 failed: java.lang.IllegalStateException",
                        "late ALL_SUCCEED 1 timed out"),
                events.stream().map(e -> e.getString("name") + " " + e.getString("policy") + " " + e.getLong("forks")
                        + " " + e.getString("outcome")).toList());
        assertTrue(events.get(2).getDuration().toMillis() >= 15, "from open to close: " + events.get(2).getDuration());
    }

    @Test
    void eventsAreOffUnlessARecordingEnablesThem() throws IOException {
        assertEquals(List.of(), record(() -> {
            rejectTwice();
            threeScopes();
        }));
    }

    @Test
    void jfrPrintShowsThem() throws Exception {
        record(WeftEventsTest::rejectTwice, LimiterRejectionEvent.NAME);
        Path jfr = Path.of(System.getProperty("java.home"), "bin", "jfr");
        Process p = new ProcessBuilder(jfr.toString(), "print", "--events", LimiterRejectionEvent.NAME,
                dir.resolve("weft.jfr").toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "jfr print ended");
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("dev.weft.LimiterRejection {") && out.contains("limiter = \"db\""), out);
    }
}
