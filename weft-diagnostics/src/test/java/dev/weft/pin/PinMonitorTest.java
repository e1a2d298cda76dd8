package dev.weft.pin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class PinMonitorTest {

    private static final boolean JDK_24_PLUS = Runtime.version().feature() >= 24;
    private static final Duration PIN = Duration.ofMillis(15);
    private static final String PROBE = "dev.weft.pin.ProbeInit";

    @Test
    void jfrIsAvailableHere() {
        assertTrue(PinMonitor.isAvailable());
    }

    @Test
    void theThresholdLeavesOutShorterPins() throws Exception {
        try (PinMonitor slow = PinMonitor.builder()
                        .threshold(Duration.ofSeconds(5))
                        .sampleScheduler(Duration.ZERO, 0)
                        .start();
                PinMonitor all = PinMonitor.builder()
                        .threshold(Duration.ZERO)
                        .sampleScheduler(Duration.ZERO, 0)
                        .start()) {
            PinProbe.pinVirtualThread(PIN);
            assertEquals(1, all.report().pins(), "the pin happened");
            assertEquals(0, slow.report().pins(), "but it was shorter than 5 s");
            assertEquals(Duration.ofSeconds(5), slow.threshold());
        }
    }

    @Test
    void callsBackOncePerPinWithTheStack() throws Exception {
        List<PinEvent> seen = new CopyOnWriteArrayList<>();
        try (PinMonitor m =
                PinMonitor.builder().threshold(Duration.ZERO).onPin(seen::add).start()) {
            PinProbe.pinVirtualThread(PIN);
            PinProbe.pinVirtualThread(PIN);
            assertTrue(m.sync(PinMonitor.DELIVERY_TIMEOUT));
            assertEquals(2, seen.size(), seen.toString());
            PinEvent e = seen.getFirst();
            // JFR times the pin from the park attempt, a little after the probe's sleep began (on
            // JDK 21 measurably so): the pin lasts about the sleep, never much less.
            assertTrue(
                    e.duration().compareTo(PIN.dividedBy(2)) >= 0, e.duration().toString());
            assertFalse(e.end().isBefore(e.start()));
            assertTrue(
                    e.frames().stream().anyMatch(f -> f.className().equals(PROBE)),
                    e.frames().toString());
            Map<String, Object> data = e.toMap();
            assertEquals(
                    List.of(
                            "start",
                            "duration_ms",
                            "reason",
                            "blocking_operation",
                            "thread",
                            "carrier",
                            "frames",
                            "truncated"),
                    List.copyOf(data.keySet()));
            if (JDK_24_PLUS) {
                assertNotNull(e.reason());
            } else {
                assertNull(e.reason(), "JFR gives no pinned reason before JDK 24");
            }
        }
    }

    @Test
    void aFailingCallbackIsLoggedAndTheMonitorGoesOn() throws Exception {
        RecordingLogger log = new RecordingLogger();
        try (PinMonitor m = PinMonitor.builder()
                .threshold(Duration.ZERO)
                .logger(log)
                .sampleScheduler(Duration.ZERO, 0)
                .onPin(pin -> {
                    throw new IllegalStateException("callback bug");
                })
                .start()) {
            PinProbe.pinVirtualThread(PIN);
            PinProbe.pinVirtualThread(PIN);
            assertEquals(2, m.report().pins(), "both pins counted");
            List<RecordingLogger.Entry> warnings = log.at(System.Logger.Level.WARNING);
            assertEquals(2, warnings.size(), warnings.toString());
            assertTrue(warnings.getFirst().message().contains("onPin callback threw"));
            assertEquals("callback bug", warnings.getFirst().thrown().getMessage());
        }
    }

    @Test
    void aCallbackThatWaitsForTheMonitorIsToldWhyNotDeadlocked() throws Exception {
        RecordingLogger log = new RecordingLogger();
        java.util.concurrent.atomic.AtomicReference<PinMonitor> self =
                new java.util.concurrent.atomic.AtomicReference<>();
        try (PinMonitor m = PinMonitor.builder()
                .threshold(Duration.ZERO)
                .logger(log)
                .sampleScheduler(Duration.ZERO, 0)
                .onPin(pin -> self.get().stop())
                .start()) {
            self.set(m);
            PinProbe.pinVirtualThread(PIN);
            assertEquals(1, m.report().pins());
            List<RecordingLogger.Entry> warnings = log.at(System.Logger.Level.WARNING);
            assertEquals(1, warnings.size(), warnings.toString());
            assertTrue(
                    warnings.getFirst().thrown().getMessage().contains("call it from another thread"),
                    warnings.getFirst().thrown().getMessage());
            assertFalse(m.isStopped());
        }
    }

    @Test
    void logsASummaryWhenPinsHappenedAndOnlyDebugOtherwise() throws Exception {
        RecordingLogger log = new RecordingLogger();
        try (PinMonitor m = PinMonitor.builder()
                .threshold(Duration.ZERO)
                .logger(log)
                .summaryEvery(Duration.ofNanos(1))
                .start()) {
            assertTrue(m.sync(PinMonitor.DELIVERY_TIMEOUT));
            assertTrue(log.at(System.Logger.Level.WARNING).isEmpty(), "nothing pinned yet: " + log.entries);
            assertFalse(log.at(System.Logger.Level.DEBUG).isEmpty(), "a quiet summary at DEBUG");
            PinProbe.pinVirtualThread(PIN);
            assertTrue(m.sync(PinMonitor.DELIVERY_TIMEOUT));
            List<RecordingLogger.Entry> warnings = log.at(System.Logger.Level.WARNING);
            assertEquals(1, warnings.size(), log.entries.toString());
            String line = warnings.getFirst().message();
            assertTrue(line.contains(": 1 pin in the last"), line);
            if (JDK_24_PLUS) {
                // the pinned reason names the initializer
                assertTrue(line.contains(PROBE + ".<clinit>"), line);
                assertTrue(line.contains("scheduler: parallelism"), line);
            } else {
                // JDK 21-23: no pinned reason, so the site is named by its first application
                // frame, and the scheduler's figures say why they are missing
                assertTrue(line.contains("pinned at dev.weft.pin.PinProbe.blockInInitializer"), line);
                assertTrue(
                        line.contains("scheduler figures not available: VirtualThreadSchedulerMXBean needs JDK 24"),
                        line);
            }
        }
    }

    @Test
    void theReportHasSitesAndSchedulerHealthAsDataAndText() throws Exception {
        try (PinMonitor m = PinMonitor.builder()
                .threshold(Duration.ZERO)
                .sampleScheduler(Duration.ofMillis(5), 100)
                .start()) {
            PinProbe.pinVirtualThread(PIN);
            PinReport r = m.report();
            assertEquals(1, r.pins());
            assertNotNull(r.scheduler());
            Map<String, Object> data = r.toMap();
            assertEquals(
                    List.of(
                            "from",
                            "to",
                            "threshold_ms",
                            "pins",
                            "pinned_ms",
                            "sites",
                            "other_pins",
                            "submit_failures",
                            "submit_failure_messages",
                            "scheduler",
                            "not_counted"),
                    List.copyOf(data.keySet()));
            assertEquals(0.0, data.get("threshold_ms"));
            @SuppressWarnings("unchecked")
            Map<String, Object> site = ((List<Map<String, Object>>) data.get("sites")).getFirst();
            assertEquals(1L, site.get("count"));
            String text = r.toText();
            assertTrue(text.startsWith("1 pin at 1 site, "), text);
            assertTrue(text.contains("at " + PROBE + ".<clinit>"), text);
            assertTrue(text.contains("\nscheduler: "), text);
        }
    }

    @Test
    void stopReturnsTheFinalReportOnceAndEndsTheMonitorThread() throws Exception {
        PinMonitor m = PinMonitor.builder().threshold(Duration.ZERO).start();
        String threadName = "weft-pin-monitor-" + m.id();
        assertTrue(threadAlive(threadName));
        PinProbe.pinVirtualThread(PIN);
        PinReport last = m.stop();
        assertEquals(1, last.pins());
        assertSame(last, m.stop());
        assertSame(last, m.report());
        assertTrue(m.isStopped());
        assertFalse(threadAlive(threadName), "monitor thread ended");
        assertFalse(threadAlive("weft-scheduler-sampler"), "sampler ended");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> m.sync(Duration.ofSeconds(1)));
        assertTrue(e.getMessage().contains("stopped"), e.getMessage());
    }

    @Test
    void badSettingsAreRejectedWithTheFix() {
        PinMonitor.Builder b = PinMonitor.builder();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.threshold(Duration.ofMillis(-1)))
                .getMessage()
                .contains("0 records every pin"));
        assertThrows(IllegalArgumentException.class, () -> b.topFrames(0));
        assertThrows(IllegalArgumentException.class, () -> b.maxSites(0));
        assertThrows(IllegalArgumentException.class, () -> b.summaryEvery(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> b.sampleScheduler(Duration.ofSeconds(1), 0));
        assertThrows(NullPointerException.class, () -> b.onPin(null));
    }

    private static boolean threadAlive(String name) {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals(name));
    }

    /** A System.Logger that keeps what it is given, at every level. */
    static final class RecordingLogger implements System.Logger {
        record Entry(Level level, String message, Throwable thrown) {}

        final List<Entry> entries = Collections.synchronizedList(new ArrayList<>());

        List<Entry> at(Level level) {
            synchronized (entries) {
                return entries.stream().filter(e -> e.level() == level).toList();
            }
        }

        @Override
        public String getName() {
            return "test";
        }

        @Override
        public boolean isLoggable(Level level) {
            return true;
        }

        @Override
        public void log(Level level, Supplier<String> msg) {
            entries.add(new Entry(level, msg.get(), null));
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
            entries.add(new Entry(level, msg, thrown));
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            entries.add(new Entry(
                    level,
                    params == null || params.length == 0 ? format : java.text.MessageFormat.format(format, params),
                    null));
        }
    }
}
