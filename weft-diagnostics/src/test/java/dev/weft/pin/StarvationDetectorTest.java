package dev.weft.pin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.Test;

class StarvationDetectorTest {

    static volatile long sink;

    /** Keeps a carrier busy without ever giving it back, for {@code ms}. */
    static void spinOnCarrier(long ms) {
        long end = System.nanoTime() + ms * 1_000_000;
        long x = 0;
        while (System.nanoTime() < end) {
            x += x * 31 + 7;
        }
        sink = x;
    }

    /** Starts {@code n} threads that each spin for {@code ms} and waits for them. */
    static void spinAll(Thread.Builder builder, int n, long ms) throws InterruptedException {
        List<Thread> spinners = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            spinners.add(builder.start(() -> spinOnCarrier(ms)));
        }
        for (Thread t : spinners) {
            t.join();
        }
    }

    @Test
    void busyCarriersAreSeenWithWhatHeldThem() throws Exception {
        LinkedBlockingQueue<StarvationDetector.Episode> seen = new LinkedBlockingQueue<>();
        int carriers = Integer.getInteger(
                "jdk.virtualThreadScheduler.parallelism", Runtime.getRuntime().availableProcessors());
        StarvationDetector d = StarvationDetector.builder()
                .threshold(Duration.ofMillis(50))
                .onStarvation(seen::add)
                .start();
        Thread.sleep(50);
        spinAll(Thread.ofVirtual(), carriers * 2, 1000);
        Thread.sleep(50);
        StarvationReport r = d.stop();
        assertTrue(r.episodes() >= 1, r.toText());
        assertTrue(r.max().toMillis() >= 50, r.toText());
        assertTrue(r.starved().compareTo(r.max()) >= 0);
        // JFR samples on JDK 24+, a thread dump taken during the episode on JDK 21-23
        assertTrue(
                r.sites().stream()
                        .anyMatch(s ->
                                s.frames().stream().anyMatch(f -> f.method().equals("spinOnCarrier"))),
                "the spinning site is named:\n" + r.toText());
        assertEquals(r.episodes(), seen.size(), "one callback per episode");
        assertTrue(r.toMap().containsKey("starved_ms"));
        assertTrue(r.toText().contains("starvation episode"), r.toText());
        assertTrue(d.stop() == r, "stop is idempotent");
    }

    @Test
    void aBusyOperatingSystemIsNotStarvation() throws Exception {
        // Platform threads, four per core, spin: the OS runs the carriers late, yet no virtual thread holds them.
        int cores = Runtime.getRuntime().availableProcessors();
        StarvationDetector d =
                StarvationDetector.builder().threshold(Duration.ofMillis(20)).start();
        Thread.sleep(50);
        spinAll(Thread.ofPlatform(), cores * 4, 1500);
        StarvationReport r = d.stop();
        assertEquals(0, r.episodes(), "no virtual thread held a carrier:\n" + r.toText());
        assertEquals(r.unattributed(), r.toMap().get("unattributed"));
    }

    @Test
    void aPinMonitorRunsTheDetectorAndSaysSoInItsSummary() throws Exception {
        PinMonitorTest.RecordingLogger logger = new PinMonitorTest.RecordingLogger();
        int carriers = Integer.getInteger(
                "jdk.virtualThreadScheduler.parallelism", Runtime.getRuntime().availableProcessors());
        try (PinMonitor m = PinMonitor.builder()
                .summaryEvery(Duration.ofMillis(200))
                .logger(logger)
                .detectStarvation(StarvationDetector.builder().threshold(Duration.ofMillis(50)))
                .start()) {
            List<Thread> spinners = new ArrayList<>();
            for (int i = 0; i < carriers * 2; i++) {
                spinners.add(Thread.ofVirtual().start(() -> spinOnCarrier(500)));
            }
            for (Thread t : spinners) {
                t.join();
            }
            long end = System.nanoTime() + 10_000_000_000L;
            while (logger.at(System.Logger.Level.WARNING).stream()
                            .noneMatch(e -> e.message().contains("waited for a carrier"))
                    && System.nanoTime() < end) {
                Thread.sleep(50);
            }
            assertTrue(m.starvation().orElseThrow().episodes() >= 1);
            assertTrue(
                    logger.at(System.Logger.Level.WARNING).stream()
                            .anyMatch(e -> e.message().contains("waited for a carrier")),
                    logger.entries.toString());
        }
    }

    @Test
    void badOptionsAreRejected() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> StarvationDetector.builder().threshold(Duration.ZERO));
        assertTrue(e.getMessage().contains("threshold"));
        assertThrows(
                IllegalArgumentException.class,
                () -> StarvationDetector.builder().topFrames(0));
    }
}
