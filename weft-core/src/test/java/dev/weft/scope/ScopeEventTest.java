package dev.weft.scope;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.weft.testing.WeftRecordings;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scope's JFR event in a real recording. */
class ScopeEventTest {

    @TempDir
    Path dir;

    private List<RecordedEvent> record(Runnable body, String... enabled) throws IOException {
        return WeftRecordings.record(dir, body, enabled);
    }

    private static void threeScopes() {
        try (Scope ok = Scope.builder().name("ok").open()) {
            ok.fork(() -> 1);
            ok.fork(() -> 2);
            ok.join();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        try (Scope bad =
                Scope.builder().name("bad").policy(Scope.Policy.FIRST_SUCCESS).open()) {
            bad.fork(() -> {
                throw new IllegalStateException("boom");
            });
            assertThrows(IllegalStateException.class, bad::join);
        }
        try (Scope late =
                Scope.builder().name("late").timeout(Duration.ofMillis(20)).open()) {
            late.fork(() -> {
                Thread.sleep(10_000);
                return 0;
            });
            assertThrows(java.util.concurrent.TimeoutException.class, late::join);
        }
    }

    @Test
    void aScopeIsADurationEventWithItsPolicyForksAndOutcome() throws IOException {
        List<RecordedEvent> events = record(ScopeEventTest::threeScopes, ScopeEvent.NAME);
        assertEquals(
                List.of(
                        "ok ALL_SUCCEED 2 succeeded",
                        "bad FIRST_SUCCESS 1 failed: java.lang.IllegalStateException",
                        "late ALL_SUCCEED 1 timed out"),
                events.stream()
                        .map(e -> e.getString("name") + " " + e.getString("policy") + " " + e.getLong("forks") + " "
                                + e.getString("outcome"))
                        .toList());
        assertTrue(
                events.get(2).getDuration().toMillis() >= 15,
                "from open to close: " + events.get(2).getDuration());
    }

    @Test
    void offUnlessARecordingEnablesIt() throws IOException {
        assertEquals(List.of(), record(ScopeEventTest::threeScopes));
    }

    @Test
    void jfrNamesAreUnchangedByTheMove() {
        assertEquals("dev.weft.Scope", ScopeEvent.NAME);
        assertEquals("dev.weft.LimiterRejection", dev.weft.limit.LimiterRejectionEvent.NAME);
        @SuppressWarnings("deprecation")
        List<String> old = List.of(dev.weft.jfr.ScopeEvent.NAME, dev.weft.jfr.LimiterRejectionEvent.NAME);
        assertEquals(
                List.of(ScopeEvent.NAME, dev.weft.limit.LimiterRejectionEvent.NAME),
                old,
                "the deprecated holders in dev.weft.jfr name the same events");
    }
}
