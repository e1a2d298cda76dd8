package dev.weft.pin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

class PinCaptureTest {

    private static final boolean JDK_24_PLUS = Runtime.version().feature() >= 24;
    private static final Duration PIN = Duration.ofMillis(15);
    private static final String PROBE = "dev.weft.pin.ProbeInit";

    @Test
    void aCaptureCountsEveryPinOfItsPeriodAtOneSite() throws Exception {
        PinCapture capture = PinCapture.start();
        for (int i = 0; i < 3; i++) {
            PinProbe.pinVirtualThread(PIN);
        }
        PinReport report = capture.end();

        assertEquals(3, report.pins(), report.toText());
        assertEquals(1, report.sites().size(), report.toText());
        PinSite site = report.sites().getFirst();
        assertEquals(3, site.count());
        // JFR times a pin from the park attempt, a little after the probe's sleep began (on JDK 21
        // measurably so, 42 ms for 3 x 15 ms seen): each pin lasts about the sleep, never much less.
        assertTrue(
                site.total().compareTo(PIN.multipliedBy(3).dividedBy(2)) >= 0,
                "each pin lasts about the sleep: " + site.total());
        assertTrue(site.max().compareTo(PIN.dividedBy(2)) >= 0, site.max().toString());
        assertTrue(
                site.frames().stream()
                        .anyMatch(f -> f.className().equals(PROBE) && f.method().equals("<clinit>")),
                "the initializer is on the stack: " + site.frames());
        PinFrame first = site.firstApplicationFrame();
        assertEquals(
                "dev.weft.pin.PinProbe.blockInInitializer",
                first.className() + "." + first.method(),
                "the first frame outside the JDK: " + site.frames());
        assertFalse(
                site.frames().stream().anyMatch(f -> f.className().contains("/0x")),
                "no hidden-class address in names");
        if (JDK_24_PLUS) {
            assertEquals("VM call to " + PROBE + ".<clinit> on stack", site.reason());
            assertNotNull(site.blockingOperation());
        }
        assertSame(report, capture.end(), "end() is idempotent");
    }

    @Test
    void workThatOnlyParksDoesNotPin() throws Exception {
        Object monitor = new Object();
        ReentrantLock lock = new ReentrantLock();
        PinCapture capture = PinCapture.start();
        Thread a = Thread.ofVirtual().start(() -> sleep(PIN));
        Thread b = Thread.ofVirtual().start(() -> {
            lock.lock();
            try {
                sleep(PIN);
            } finally {
                lock.unlock();
            }
        });
        Thread c = Thread.ofVirtual().start(() -> {
            synchronized (monitor) {
                sleep(PIN);
            }
        });
        a.join();
        b.join();
        c.join();
        PinReport report = capture.end();
        if (JDK_24_PLUS) {
            assertEquals(0, report.pins(), "JEP 491: synchronized no longer pins\n" + report.toText());
            assertTrue(report.isEmpty());
        } else {
            assertEquals(1, report.pins(), "JDK 21-23: sleeping inside synchronized pins\n" + report.toText());
        }
    }

    @Test
    void aCaptureLeavesOutPinsBeforeItsStartAndAfterItsEnd() throws Exception {
        PinProbe.pinVirtualThread(PIN); // delivered to the monitor only after the capture below starts
        PinCapture capture = PinCapture.start();
        PinReport report = capture.end();
        PinProbe.pinVirtualThread(PIN);
        assertEquals(0, report.pins(), report.toText());
        assertEquals(0, capture.end().pins(), "the report is fixed when the capture ends");
    }

    @Test
    void overlappingCapturesEachSeeTheirOwnPeriod() throws Exception {
        PinCapture outer = PinCapture.start();
        PinProbe.pinVirtualThread(PIN);
        PinCapture inner = PinCapture.start();
        PinProbe.pinVirtualThread(PIN);
        assertEquals(1, inner.end().pins());
        PinProbe.pinVirtualThread(PIN);
        assertEquals(3, outer.end().pins());
    }

    @Test
    void aThresholdLeavesOutShorterPins() throws Exception {
        PinCapture slow = PinCapture.start(Duration.ofSeconds(5), 4);
        PinCapture all = PinCapture.start();
        PinProbe.pinVirtualThread(PIN);
        assertEquals(1, all.end().pins(), "the pin happened");
        PinReport r = slow.end();
        assertEquals(0, r.pins(), "but it was shorter than 5 s");
        assertEquals(Duration.ofSeconds(5), r.threshold());
    }

    @Test
    void theReportSpansTheCapture() throws Exception {
        PinCapture c = PinCapture.start();
        PinProbe.pinVirtualThread(PIN);
        PinReport r = c.end();
        assertTrue(r.from().isBefore(r.to()));
        assertTrue(Duration.between(r.from(), r.to()).compareTo(PIN) >= 0, "the period held a 15 ms pin");
        assertTrue(r.toText().contains("1 pin at 1 site"), r.toText());
    }

    @Test
    void rejectsBadArguments() {
        assertThrows(IllegalArgumentException.class, () -> PinCapture.start(Duration.ofMillis(-1), 4));
        assertThrows(IllegalArgumentException.class, () -> PinCapture.start(Duration.ZERO, 0));
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
