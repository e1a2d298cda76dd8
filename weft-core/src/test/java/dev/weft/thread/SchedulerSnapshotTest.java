package dev.weft.thread;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class SchedulerSnapshotTest {

    private static final boolean JDK_24_PLUS = Runtime.version().feature() >= 24;

    @Test
    void schedulerFiguresAreAvailableExactlyFromJdk24() {
        SchedulerSnapshot s = SchedulerSnapshot.take();
        assertEquals(JDK_24_PLUS, s.schedulerAvailable());
        if (JDK_24_PLUS) {
            assertNull(s.unavailableReason());
            assertTrue(s.parallelism() >= 1);
            assertTrue(s.mountedVirtualThreads() >= 0);
        } else {
            assertTrue(s.unavailableReason().contains("JDK 24"), s.unavailableReason());
            assertEquals(-1, s.parallelism());
            assertNull(s.toMap().get("parallelism"));
        }
        assertTrue(s.livePlatformThreads() >= 1);
        assertTrue(s.peakPlatformThreads() >= s.livePlatformThreads());
    }

    @Test
    void seesAVirtualThreadThatIsRunning() throws Exception {
        if (!JDK_24_PLUS) {
            return; // nothing to see: covered by the test above
        }
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch running = new CountDownLatch(1);
        Thread spinner = Thread.ofVirtual().start(() -> {
            running.countDown();
            while (!stop.get()) {
                Thread.onSpinWait();
            }
        });
        try {
            running.await();
            assertTrue(SchedulerSnapshot.take().mountedVirtualThreads() >= 1);
        } finally {
            stop.set(true);
            spinner.join();
        }
    }

    @Test
    void peakCountsPlatformThreadsSinceTheReset() throws Exception {
        SchedulerSnapshot.resetPeakPlatformThreads();
        int before = SchedulerSnapshot.take().livePlatformThreads();
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        release.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertTrue(SchedulerSnapshot.take().peakPlatformThreads() >= before + 5);
    }

    @Test
    void mapHasStableKeys() {
        var keys = List.copyOf(SchedulerSnapshot.take().toMap().keySet());
        assertEquals(List.of("at", "scheduler_available", "unavailable_reason", "parallelism", "pool_size",
                "mounted_virtual_threads", "queued_virtual_threads", "live_platform_threads",
                "peak_platform_threads", "started_platform_threads"), keys);
    }

    @Test
    void samplerRecordsUntilStoppedAndEndsItsThread() throws Exception {
        SchedulerSampler sampler = SchedulerSampler.start(Duration.ofMillis(5));
        Thread[] threads = new Thread[3];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(60);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        for (Thread t : threads) {
            t.join();
        }
        SchedulerSamples seen = sampler.stop();
        assertTrue(seen.samples().size() >= 2, "samples: " + seen.samples().size());
        assertTrue(seen.platformThreadsStarted() >= 3);
        assertTrue(seen.peakPlatformThreads() >= 4, "3 workers plus the sampler");
        assertEquals(seen, sampler.stop(), "stop is idempotent");
        assertFalse(Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals("weft-scheduler-sampler")), "sampler thread ended");
    }

    @Test
    void samplerRejectsANonPositiveInterval() {
        var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> SchedulerSampler.start(Duration.ZERO));
        assertTrue(e.getMessage().contains("positive"), e.getMessage());
    }
}
